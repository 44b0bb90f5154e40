import Cryptography
import Foundation
import Postgres
import SyncEngine

extension PostgresSyncStore {
    /// One transaction in which order code writes its own rows (idempotency keys) on
    /// `connection` beside the engine's changes made through `transaction`.
    func withOrderTransaction<T>(_ body: (_ connection: PostgresConnection, _ transaction: any SyncTransaction) throws -> T) throws -> T {
        try database.withTransaction { connection in
            // Orders never wait for attachments, so no attachment lookup is needed.
            try body(connection, PostgresSyncTransaction(connection: connection, attachments: NoFinalizedAttachments()))
        }
    }
}

/// Serializes the creation of one order id.
///
/// Locking the record row cannot do it: a record that does not exist yet has no row to
/// lock, and two concurrent creates of one id would both see none. With this lock the
/// second create waits for the first to commit, then finds the record (`RECORD_EXISTS`).
enum OrderLock {
    static func lock(orderId: String, on connection: PostgresConnection) throws {
        try connection.execute("SELECT pg_advisory_xact_lock(\(AdvisoryLockKey.of("order", orderId)))")
    }
}

/// Keys for PostgreSQL's advisory locks, which share one 64-bit space per database.
enum AdvisoryLockKey {
    /// The first 8 bytes of the SHA-256 of `parts` joined by NUL: distinct part lists get
    /// distinct keys but for a 2^-64 chance.
    static func of(_ parts: String...) -> Int64 {
        let digest = SHA256.hash(Data(parts.joined(separator: "\u{0}").utf8))
        return digest.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
}
