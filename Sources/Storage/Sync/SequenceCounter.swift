package import Postgres

/// The sequence counter row, whose lock every writer of numbered changes or outbox events holds
/// from taking it until commit (docs/decisions/0003).
///
/// Writers queue for it first on a transaction-scoped advisory lock. PostgreSQL hands such a
/// lock to its waiters in arrival order, whereas a row lock goes to whichever waiter reaches the
/// row first after a commit: under load a push that had just arrived would often overtake ones
/// that had waited for many commits, which made the slowest pushes several times slower than the
/// median. The row lock is then never contended.
package enum SequenceCounter {
    /// The queue: a two-key advisory lock, a key space apart from the one-key locks on record keys.
    package static let queue: PostgresQuery = "SELECT pg_advisory_xact_lock(\(lockClass), 1)"

    /// Takes the lock; the second statement answers the latest committed number.
    static let lock: [PostgresQuery] = [queue, "SELECT value FROM sequence_counter FOR UPDATE"]

    /// Takes the lock and reserves `count` numbers; the second statement answers the first one.
    static func reserve(_ count: Int) -> [PostgresQuery] {
        [queue, "UPDATE sequence_counter SET value = value + \(count) RETURNING value - \(count) + 1"]
    }

    /// "FSYC" in ASCII.
    private static let lockClass: Int32 = 0x4653_5943
}
