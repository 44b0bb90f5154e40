import HTTP
import Storage
import SyncAPI
import SyncEngine

/// Every route of the server, in one place.
enum Routes {
    static let version = "0.1.0"

    static func build(_ services: Services) -> Router {
        let router = Router(logger: services.logger, failures: APIFailureRenderer())
        let api = APIRoutes(
            router: router,
            access: DeviceAccess(
                authenticator: services.authenticator, principals: services.principals, gate: services.gate, settings: services.settings))
        HealthController(probe: PostgresHealthProbe(database: services.database), version: version).register(on: api)
        AuthController(
            login: services.login, accounts: services.accounts, settings: services.settings,
            authenticator: services.authenticator
        ).register(on: api)
        ConfigController(schema: services.schema).register(on: api)
        SyncController(pushes: services.pushes, pulls: services.pulls, visits: services.visits, schema: services.schema).register(on: api)
        ConflictsController(conflicts: services.conflicts, changes: services.serverChanges).register(on: api)
        AttachmentsController(uploads: services.attachments).register(on: api)
        TeamRollupController(rollups: PostgresTeamRollupStore(database: services.database)).register(on: api)
        OrdersController(orders: services.orders).register(on: api)
        services.liveEvents.register(on: api)
        let reports = ReportSyncService(pushes: services.pushes)
        ReportsController(
            reports: reports, assignments: PostgresAssignmentReader(database: services.database),
            photos: ReportPhotoService(reports: reports, attachments: services.attachments),
            schemaVersion: services.schema.version
        ).register(on: api)
        services.backOffice.register(on: router)
        return router
    }
}
