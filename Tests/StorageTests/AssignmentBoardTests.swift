import Foundation
import Postgres
import PostgresTesting
import SyncEngine
import SyncProtocol
import Testing

@testable import Storage

@Suite("The assignment board on PostgreSQL")
struct AssignmentBoardTests {
    /// 130 live assignments in teams north and south over users u-1…u-5, every tenth deleted,
    /// and jobs beside them; user u-1 exists as `ana`.
    static func seed(_ database: PostgresClient) throws {
        try database.withConnection { connection in
            try connection.execute("INSERT INTO teams (id) VALUES ('north'), ('south')")
            try connection.execute("INSERT INTO users (id, username, role, team_id, password_hash) VALUES ('u-1', 'ana', 'field', 'north', '!')")
            try connection.execute(
                """
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, team_scope, deleted_seq, schema_version)
                SELECT CASE WHEN g <= 143 THEN 'assignments' ELSE 'jobs' END, 'r-' || lpad(g::text, 4, '0'),
                       jsonb_build_object('title', 'Work ' || g, 'assigneeId', 'u-' || g % 5, 'teamId', CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END),
                       '{}'::jsonb, g, 'user:u-' || g % 5, CASE WHEN g % 2 = 0 THEN 'team:north' ELSE 'team:south' END,
                       CASE WHEN g % 11 = 0 THEN g END, 3
                FROM generate_series(1, 200) g
                """)
        }
    }

    static func all(_ board: PostgresAssignmentBoard, _ filter: AssignmentFilter, limit: Int) throws -> [AssignedRecord] {
        var page = try board.records(filter, after: nil, limit: limit)
        var rows = page.rows
        while let next = page.next {
            page = try board.records(filter, after: next, limit: limit)
            rows += page.rows
            try #require(rows.count <= 200, "paging does not end")
        }
        return rows
    }

    @Test("lists live records of one collection by id, page after page, filtered by team and field user")
    func paging() throws {
        let database = try StorageDatabase.migrated()
        try Self.seed(database)
        let board = PostgresAssignmentBoard(database: database)
        let every = try Self.all(board, AssignmentFilter(collection: "assignments"), limit: 40)
        let expected = (1...143).filter { $0 % 11 != 0 }.map { "r-" + String(format: "%04d", $0) }
        #expect(every.map(\.key.recordId) == expected)
        let north = try Self.all(board, AssignmentFilter(collection: "assignments", teamId: "north", assigneeId: "u-1"), limit: 7)
        #expect(north.map(\.key.recordId) == expected.filter { Int($0.dropFirst(2))! % 10 == 6 })
        #expect(north.allSatisfy { $0.assigneeName == "ana" && $0.teamId == "north" })
        #expect(try board.records(AssignmentFilter(collection: "assignments", teamId: "west"), after: nil, limit: 10).rows.isEmpty)
        #expect(throws: PageCursor.Invalid.self) {
            try board.records(AssignmentFilter(collection: "assignments"), after: PageCursor(["a", "b"]), limit: 10)
        }
    }

    @Test("finds one record, deleted ones marked, and knows which teams exist")
    func lookups() throws {
        let database = try StorageDatabase.migrated()
        try Self.seed(database)
        let board = PostgresAssignmentBoard(database: database)
        let deleted = try #require(try board.record(RecordKey(collection: "assignments", recordId: "r-0011")))
        #expect(deleted.isDeleted && deleted.serverSeq == 11)
        #expect(try board.record(RecordKey(collection: "jobs", recordId: "r-0001")) == nil)
        #expect(try board.teamExists("north") && !(try board.teamExists("west")))
    }
}
