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
