public import Postgres

/// How much write-ahead log the cluster has written (`pg_stat_wal`), for benchmarks that
/// measure a phase's log volume per op: a figure that, unlike time, does not move with the
/// machine's speed.
public struct WALVolume: Sendable {
    public let records: Int64
    /// Full-page images: the first change to a page after a checkpoint logs the whole page.
    public let fullPageImages: Int64
    public let bytes: Int64

    /// The cluster's totals so far (every database's, and the server's own processes').
    public static func read(_ database: PostgresClient) throws -> WALVolume {
        let row = try database.withConnection { connection in
            try connection.query("SELECT wal_records, wal_fpi, wal_bytes::bigint FROM pg_stat_wal")[0]
        }
        return WALVolume(records: try row.decode(0), fullPageImages: try row.decode(1), bytes: try row.decode(2))
    }

    public static func - (later: WALVolume, earlier: WALVolume) -> WALVolume {
        WALVolume(
            records: later.records - earlier.records, fullPageImages: later.fullPageImages - earlier.fullPageImages,
            bytes: later.bytes - earlier.bytes)
    }
}
