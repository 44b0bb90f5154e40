import Postgres
import SyncEngine

/// The pool's calls, with a statement or lock timeout surfaced as the engine's ``StoreBusy``,
/// so the layers above can answer "retry shortly" without knowing PostgreSQL's SQLSTATEs.
extension PostgresClient {
    func connection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try surfacingTimeouts { try withConnection(body) }
    }

    func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try surfacingTimeouts { try withTransaction(body) }
    }
}

private func surfacingTimeouts<T>(_ call: () throws -> T) throws -> T {
    do {
        return try call()
    } catch let error as PostgresError where error.code == .queryCanceled {
        throw StoreBusy(.statementTimeout)
    } catch let error as PostgresError where error.code == .lockNotAvailable {
        throw StoreBusy(.lockTimeout)
    }
}
