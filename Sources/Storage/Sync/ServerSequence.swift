package import Postgres

/// The `server_seq` sequence serverSeq numbers come from (docs/decisions/0004).
///
/// No lock: a change's number is drawn while its record is locked, which is all that keeps a
/// record's numbers growing; pulls order changes by their transaction, not by these numbers.
package enum ServerSequence {
    /// `count` new numbers, ascending, as an array.
    static func reserve(_ count: Int) -> PostgresQuery {
        "SELECT array_agg(nextval('server_seq') ORDER BY n) FROM generate_series(1, \(count)) n"
    }

    /// The highest number issued so far, committed or not (0 before the first).
    package static let latest: PostgresQuery = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_seq"
}
