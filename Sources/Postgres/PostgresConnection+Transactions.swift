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
        return try finish(body, commit: "COMMIT", rollback: "ROLLBACK", endsTransaction: true)
    }

    /// Statements that run right after the transaction commits, each in a transaction of its own,
    /// sent in the commit's round trip: work the commit must not wait for or depend on, such as
    /// a `pg_notify` (PostgreSQL serializes the commits of notifying transactions). Their
    /// failure is logged, never reported as the commit's. A rollback, of the transaction or of
    /// the savepoint they were queued in, drops them. Outside a transaction they run at once.
    public func enqueueAfterCommit(_ queries: [PostgresQuery]) {
        guard isInTransaction else {
            do {
                _ = try runPipeline(queries)
            } catch {
                logger.warning("postgres statement after a commit failed", metadata: ["db.error": "\(error)"])
            }
            return
        }
        afterCommit += queries
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
        return try finish(
            body, commit: "RELEASE SAVEPOINT \(name)", rollback: "ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)",
            endsTransaction: false)
    }

    /// Runs `body`, then ends the unit of work it opened with `commit` or `rollback`; the
    /// after-commit statements go with a `commit` that `endsTransaction`.
    private func finish<T>(_ body: (PostgresConnection) throws -> T, commit: String, rollback: String, endsTransaction: Bool) throws -> T {
        let value: T
        let keptAfterCommit = afterCommit.count
        do {
            value = try body(self)
        } catch {
            afterCommit.removeSubrange(keptAfterCommit...)
            roll(back: rollback)
            throw error
        }
        if transactionStatus == PQTRANS_INERROR {
            // The body caught a statement error itself. COMMIT would silently roll back and report
            // success, so say what happened instead.
            afterCommit.removeSubrange(keptAfterCommit...)
            roll(back: rollback)
            throw PostgresError(
                code: .inFailedTransaction,
                message: "a statement failed inside the transaction and its error was caught; the work was rolled back")
        }
        let trailing = endsTransaction ? afterCommit : []
        if endsTransaction { afterCommit = [] }
        do {
            // The statements still queued, the commit and what runs after it share one round trip.
            _ = try runPipeline([PostgresQuery(commit).plannedPerRun()], afterwards: trailing)
        } catch {
            if !endsTransaction { afterCommit.removeSubrange(keptAfterCommit...) }
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
