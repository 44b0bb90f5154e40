import HTTP
import Postgres
import SyncProtocol

/// `GET /v1/health`: 200 when the database answers, 503 when it does not.
public struct HealthController: Sendable {
    let database: PostgresClient
    let version: String

    public init(database: PostgresClient, version: String) {
        self.database = database
        self.version = version
    }

    public func register(on router: Router) {
        router.add(.GET, "/v1/health", handler: health)
    }

    @Sendable func health(_ request: Request) throws -> Response {
        let databaseUp = (try? database.withConnection { try $0.query("SELECT 1") }) != nil
        return .json(
            HealthResponse(status: databaseUp ? "ok" : "unavailable", database: databaseUp ? "ok" : "unreachable", version: version),
            status: databaseUp ? 200 : 503)
    }
}
