import CLibPQ
import Support

extension PostgresConnection {
    /// Runs `body` in a transaction: `BEGIN`, then `COMMIT`, or `ROLLBACK` when `body` throws.
    ///
    /// Called inside another transaction it becomes a savepoint, so helpers that need atomicity can
    /// use it whether or not their caller already opened a transaction. `BEGIN` travels with the
    /// body's first statement, and statements the body queued (``enqueue(_:)``) with `COMMIT`.
    /// ```swift
    /// let id = try connection.transaction { db in
    ///     try db.query("INSERT INTO teams (name) VALUES (\(name)) RETURNING id")[0].decode(0, as: Int.self)
    /// }
    /// ```
    /// - Throws: what `body` throws (after rolling back), or `PostgresError` from `BEGIN`/`COMMIT`
    ///   (a serialization failure can surface at `COMMIT`).
    @discardableResult
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard !isInTransaction else { return try savepoint(body) }
        queued.append("BEGIN")
        return try finish(body, commit: "COMMIT", rollback: "ROLLBACK")
    }

    /// Runs `body` inside a savepoint of the current transaction: when it throws, only its work is
    /// rolled back and the outer transaction continues. Outside a transaction it is `transaction(_:)`.
    /// - Throws: what `body` throws (after rolling back to the savepoint), or `PostgresError`.
    @discardableResult
    public func savepoint<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard isInTransaction else { return try transaction(body) }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "fieldsync_savepoint_\(savepointDepth)"
        try executeScript("SAVEPOINT \(name)")
        // ROLLBACK TO keeps the savepoint open; releasing it afterwards leaves the transaction as it was.
        return try finish(body, commit: "RELEASE SAVEPOINT \(name)", rollback: "ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
    }

    /// Runs `body`, then ends the unit of work it opened with `commit` or `rollback`.
    private func finish<T>(_ body: (PostgresConnection) throws -> T, commit: String, rollback: String) throws -> T {
        let value: T
        do {
            value = try body(self)
        } catch {
            roll(back: rollback)
            throw error
        }
        if transactionStatus == PQTRANS_INERROR {
            // The body caught a statement error itself. COMMIT would silently roll back and report
            // success, so say what happened instead.
            roll(back: rollback)
            throw PostgresError(
                code: .inFailedTransaction,
                message: "a statement failed inside the transaction and its error was caught; the work was rolled back")
        }
        do {
            // The statements still queued and the commit share one round trip.
            _ = try runPipeline([PostgresQuery(commit).plannedPerRun()])
        } catch {
            if transactionStatus == PQTRANS_INERROR || transactionStatus == PQTRANS_INTRANS { roll(back: rollback) }
            throw error
        }
        return value
    }

    /// Best-effort rollback: if it fails the connection is lost, and the pool discards it.
    /// Queued statements are dropped; when not even `BEGIN` went out, there is nothing to undo.
    private func roll(back sql: String) {
        // Only this unit's statements can be queued here: `SAVEPOINT` went out through
        // `executeScript`, which sent the outer transaction's queue first.
        queued.removeAll()
        guard transactionStatus != PQTRANS_IDLE else { return }
        do {
            try executeScript(sql)
        } catch {
            logger.debug("postgres rollback failed", metadata: ["db.error": "\(error)"])
        }
    }
}
