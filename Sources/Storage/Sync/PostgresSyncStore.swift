import Foundation
public import Postgres
public import Support
public import SyncEngine

/// The sync engine's store on PostgreSQL: each `transaction` is one database transaction.
///
/// A transaction that fails with a serialization failure or deadlock is run again (the
/// engine's bodies are stateless and re-runnable), up to three times.
public final class PostgresSyncStore: SyncStore, IdempotentSyncStore {
    let database: PostgresClient
    private let attachments: any FinalizedAttachmentLookup
    private let logger: Logger

    public init(database: PostgresClient, attachments: any FinalizedAttachmentLookup, logger: Logger) {
        self.database = database
        self.attachments = attachments
        self.logger = logger
    }

    public func transaction<T: Sendable>(_ body: (any SyncTransaction) throws -> T) throws -> T {
        try transaction { _, transaction in try body(transaction) }
    }

    /// A sync transaction that also keeps the idempotency ledger, so order keys commit with the
    /// engine's changes; retried like any other.
    public func transaction<T>(_ body: (any IdempotencyLedger, any SyncTransaction) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try database.connection { connection in
                    let transaction = PostgresSyncTransaction(connection: connection, attachments: attachments)
                    return try connection.transaction { connection in
                        try body(PostgresIdempotencyLedger(connection: connection), transaction)
                    }
                }
            } catch let error as PostgresError where error.code.isTransient && attempt < 3 {
                logger.debug("sync transaction retried", metadata: ["db.error": "\(error.code)", "attempt": "\(attempt)"])
                attempt += 1
            }
        }
    }
}

/// Which attachment uploads are finalized, read inside the caller's transaction.
public protocol FinalizedAttachmentLookup: Sendable {
    func finalized(among ids: [String], on connection: PostgresConnection) throws -> Set<AttachmentRef>
}
