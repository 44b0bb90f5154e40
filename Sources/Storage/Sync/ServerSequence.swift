package import Postgres

/// The `server_seq` sequence serverSeq numbers come from (docs/decisions/0004).
///
/// No lock: a change's number is drawn while its record is locked, which is all that keeps a
/// record's numbers growing; pulls order changes by their transaction, not by these numbers.
package enum ServerSequence {
    /// `count` new numbers, ascending, as an array (the second statement's answer). The first
    /// statement gives the transaction its id before it draws: `settled_server_seq()` relies on it.
    static func reserve(_ count: Int) -> [PostgresQuery] {
        ["SELECT pg_current_xact_id()", "SELECT array_agg(nextval('server_seq') ORDER BY n) FROM generate_series(1, \(count)) n"]
    }

    /// The highest number issued so far, committed or not (0 before the first).
    package static let latest: PostgresQuery = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_seq"
}

/// The horizon below which every change has committed and none can be written any more
/// (docs/decisions/0004; the SQL functions of migration 0011).
package enum ChangeHorizon {
    /// The horizon of the statement's snapshot (of the transaction's, in repeatable read).
    static let current: PostgresQuery = "SELECT change_horizon()"

    /// Waits, up to 1 s, for the writers running now to end, and answers a horizon that a snapshot
    /// taken next may use in place of a lower one of its own; run it before taking a snapshot.
    /// Pushes end in milliseconds; the bound is for a longer writer (a worker pass, maintenance).
    private static let awaitWriters: PostgresQuery = "SELECT await_change_horizon(interval '1 second')"

    /// Waits as `awaitWriters` does and returns its horizon.
    static func awaited(on connection: PostgresConnection) throws -> Int64 {
        try connection.query(awaitWriters)[0].decode(0, as: Int64.self)
    }

    /// The highest serverSeq under which every number has settled, after waiting up to 1 s
    /// for the writers running now; NULL when they did not end in time.
    static let settledServerSeq: PostgresQuery = "SELECT settled_server_seq(interval '1 second')"

    /// The first outbox id a writer running now (or later) could write, as SQL; `floor` is a
    /// horizon from `awaited(on:)` (0 for none).
    static func firstUnsettledEventId(floor: Int64) -> String {
        "(greatest(change_horizon(), '\(floor)'::xid8)::text::bigint << 20)"
    }
}
