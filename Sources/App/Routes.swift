import HTTP
import Storage
import SyncAPI

/// Every route of the server, in one place.
enum Routes {
    static let version = "0.1.0"

    static func build(_ services: Services) -> Router {
        let router = Router(logger: services.logger, failures: APIFailureRenderer())
        let api = APIRoutes(router: router)
        HealthController(database: services.database, version: version).register(on: api)
        AuthController(
            login: services.login, accounts: services.accounts, settings: services.settings,
            authenticator: services.authenticator
        ).register(on: api)
        ConfigController(settings: services.settings, schema: services.schema, authenticator: services.authenticator).register(on: api)
        SyncController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, pushes: services.pushes,
            pulls: services.pulls, devices: services.devices, cursors: services.cursors, schema: services.schema
        ).register(on: api)
        ConflictsController(
            authenticator: services.authenticator, principals: services.principals, conflicts: services.conflicts,
            changes: services.serverChanges
        ).register(on: api)
        AttachmentsController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, uploads: services.attachments
        ).register(on: api)
        TeamRollupController(authenticator: services.authenticator, rollups: TeamRollupStore(database: services.database)).register(on: api)
        OrdersController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, orders: services.orders
        ).register(on: api)
        services.liveEvents.register(on: api)
        let reports = ReportSyncService(pushes: services.pushes)
        ReportsController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate,
            reports: reports, assignments: AssignmentFeed(database: services.database),
            photos: ReportPhotoService(reports: reports, attachments: services.attachments),
            schemaVersion: services.schema.version
        ).register(on: api)
        services.backOffice.register(on: router)
        return router
    }
}
