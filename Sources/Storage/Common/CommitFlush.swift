import Postgres

/// Whether a transaction's commit waits for the WAL flush (`synchronous_commit`), as a statement
/// run in it. Acknowledged data always waits (the server's default); bookkeeping need not, since
/// losing its last moments in a crash is harmless, unless a later answer relies on it being
/// durable (docs/decisions/0004, "Crashes").
enum CommitFlush {
    /// The commit does not wait for the flush.
    static let skipped: PostgresQuery = "SET LOCAL synchronous_commit TO off"
    /// The commit waits for the flush, whatever the session's setting.
    static let awaited: PostgresQuery = "SET LOCAL synchronous_commit TO on"
}
