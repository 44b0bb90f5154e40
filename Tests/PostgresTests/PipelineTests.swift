import Postgres
import Testing

@Suite("Pipelines")
struct PipelineTests {
    let connection: PostgresConnection

    init() throws {
        connection = try sessionConnection()
        try connection.execute("CREATE TEMP TABLE items (id int PRIMARY KEY, name text)")
    }

    private func names() throws -> [String] {
        try connection.query("SELECT name FROM items ORDER BY id").map { try $0.decode(0, as: String.self) }
    }

    @Test("runs the statements in order and returns each one's rows")
    func runsInOrder() throws {
        let rows = try connection.pipeline([
            "INSERT INTO items VALUES (1, \("a"))",
            "INSERT INTO items VALUES (2, \("b")) RETURNING id",
            "SELECT name FROM items ORDER BY id",
        ])
        #expect(rows.count == 3)
        #expect(rows[0].isEmpty)
        #expect(try rows[1].map { try $0.decode(0, as: Int.self) } == [2])
        #expect(try rows[2].map { try $0.decode(0, as: String.self) } == ["a", "b"])
    }

    @Test("reuses statements it prepared, in later pipelines and plain queries alike")
    func reusesStatements() throws {
        for round in 0..<3 {
            try connection.pipeline([
                "INSERT INTO items VALUES (\(round * 2), \("x"))", "INSERT INTO items VALUES (\(round * 2 + 1), \("x"))",
            ])
        }
        try connection.execute("INSERT INTO items VALUES (\(6), \("x"))")
        #expect(try names().count == 7)
    }

    @Test("throws the first failure, skips the rest, and leaves the transaction to roll back")
    func failureInsideTransaction() throws {
        try connection.execute("INSERT INTO items VALUES (1, \("kept"))")
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { db in
                try db.pipeline([
                    "INSERT INTO items VALUES (2, \("lost"))",
                    "INSERT INTO items VALUES (1, \("duplicate"))",
                    "INSERT INTO items VALUES (3, \("skipped"))",
                ])
            }
        }
        #expect(error?.code == .uniqueViolation)
        #expect(try names() == ["kept"])
        // The session is usable again, pipelines included.
        try connection.pipeline(["INSERT INTO items VALUES (4, \("d"))", "INSERT INTO items VALUES (5, \("e"))"])
        #expect(try names() == ["kept", "d", "e"])
    }

    @Test("refuses a bind with a NUL character before sending anything")
    func refusesNul() throws {
        #expect(throws: PostgresError.self) {
            try connection.pipeline(["INSERT INTO items VALUES (1, \("a"))", "INSERT INTO items VALUES (2, \("b\u{0}"))"])
        }
        #expect(try names() == [])
    }

    @Test("queued statements run with the commit, in order, and a rollback drops them")
    func queuedWithCommit() throws {
        try connection.transaction { db in
            try db.enqueue(["INSERT INTO items VALUES (1, \("a"))", "UPDATE items SET name = \("b") WHERE id = 1"])
            try db.enqueue(["INSERT INTO items VALUES (2, \("c"))"])
        }
        #expect(try names() == ["b", "c"])
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.transaction { db in
                try db.enqueue(["INSERT INTO items VALUES (3, \("dropped"))"])
                throw Abort()
            }
        }
        #expect(try names() == ["b", "c"])
    }

    @Test("a queued statement's failure surfaces at the commit, which rolls everything back")
    func queuedFailure() throws {
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction { db in
                try db.execute("INSERT INTO items VALUES (1, \("a"))")
                try db.enqueue(["INSERT INTO items VALUES (1, \("duplicate"))"])
            }
        }
        #expect(error?.code == .uniqueViolation)
        #expect(try names() == [])
    }

    @Test("a statement refused before sending keeps the queue, so a transaction that goes on keeps its writes")
    func refusalKeepsQueue() throws {
        try connection.transaction { db in
            try db.enqueue(["INSERT INTO items VALUES (1, \("kept"))"])
            #expect(throws: PostgresError.self) { try db.execute("INSERT INTO items VALUES (2, \("nul\u{0}"))") }
        }
        #expect(try names() == ["kept"])
    }

    @Test("the next statement carries queued ones, and savepoints and empty transactions still work")
    func queuedBeforeNextStatement() throws {
        try connection.transaction { db in
            try db.enqueue(["INSERT INTO items VALUES (1, \("a"))"])
            #expect(try db.query("SELECT count(*)::int FROM items")[0].decode(0, as: Int.self) == 1)
            #expect(throws: PostgresError.self) {
                try db.transaction { inner in
                    try inner.enqueue(["INSERT INTO items VALUES (2, \("b"))"])
                    try inner.execute("INSERT INTO items VALUES (1, \("duplicate"))")
                }
            }
        }
        try connection.transaction { _ in }
        try connection.enqueue(["INSERT INTO items VALUES (3, \("outside a transaction runs at once"))"])
        #expect(try names() == ["a", "outside a transaction runs at once"])
    }

    @Test("after-commit statements run once the commit succeeded, and their own failure is not the commit's")
    func afterCommit() throws {
        try connection.transaction { db in
            try db.execute("INSERT INTO items VALUES (1, \("a"))")
            db.enqueueAfterCommit(["INSERT INTO items VALUES (1, \("duplicate"))"])
            db.enqueueAfterCommit(["INSERT INTO items VALUES (2, \("never: after a failed one"))"])
        }
        #expect(try names() == ["a"], "the commit stands; statements after the failed one are skipped")
        try connection.transaction { db in
            db.enqueueAfterCommit(["INSERT INTO items VALUES (3, \("after"))", "UPDATE items SET name = \("after, updated") WHERE id = 3"])
            try db.enqueue(["INSERT INTO items VALUES (2, \("b"))"])
        }
        #expect(try names() == ["a", "b", "after, updated"])
        connection.enqueueAfterCommit(["INSERT INTO items VALUES (4, \("outside a transaction runs at once"))"])
        #expect(try names().last == "outside a transaction runs at once")
    }

    @Test("a failed commit, a rollback or a rolled-back savepoint drops the after-commit statements queued in it")
    func afterCommitDropped() throws {
        #expect(throws: PostgresError.self) {
            try connection.transaction { db in
                db.enqueueAfterCommit(["INSERT INTO items VALUES (5, \("after a failed commit"))"])
                try db.execute("INSERT INTO items VALUES (1, \("a"))")
                try db.enqueue(["INSERT INTO items VALUES (1, \("duplicate"))"])
            }
        }
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try connection.transaction { db in
                db.enqueueAfterCommit(["INSERT INTO items VALUES (6, \("after a rollback"))"])
                throw Abort()
            }
        }
        #expect(try names() == [])
        try connection.transaction { db in
            db.enqueueAfterCommit(["INSERT INTO items VALUES (7, \("outer"))"])
            #expect(throws: Abort.self) {
                try db.transaction { inner in
                    inner.enqueueAfterCommit(["INSERT INTO items VALUES (8, \("inner, rolled back"))"])
                    throw Abort()
                }
            }
        }
        #expect(try names() == ["outer"])
    }
}
