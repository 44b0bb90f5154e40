import Storage
public import SyncAPI

/// `GET /v1/health` for monitors and load balancers.
public struct HealthFeature: Feature {
    /// The server's version, as the health answer reports it.
    static let version = "0.1.0"
    let probe: PostgresHealthProbe

    init(_ core: Core) {
        probe = PostgresHealthProbe(database: core.database)
    }

    public func routes(on api: APIRoutes) {
        HealthController(probe: probe, version: Self.version).register(on: api)
    }
}
