import Foundation
import HTTP
import Storage
import SyncAPI

/// Every route of the server, in one place.
enum Routes {
    static let version = "0.1.0"

    static func build(_ services: Services, resources: URL) throws -> Router {
        let router = Router()
        HealthController(database: services.database, version: version).register(on: router)
        try OpenAPIController(resources: resources).register(on: router)
        AuthController(
            login: services.login, accounts: services.accounts, settings: services.settings,
            authenticator: services.authenticator
        ).register(on: router)
        ConfigController(settings: services.settings, schema: services.schema, authenticator: services.authenticator).register(on: router)
        SyncController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, pushes: services.pushes,
            pulls: services.pulls, devices: services.devices, cursors: services.cursors, schema: services.schema
        ).register(on: router)
        ConflictsController(
            authenticator: services.authenticator, principals: services.principals, conflicts: services.conflicts,
            changes: services.serverChanges
        ).register(on: router)
        AttachmentsController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, uploads: services.attachments
        ).register(on: router)
        TeamRollupController(authenticator: services.authenticator, rollups: TeamRollupStore(database: services.database)).register(on: router)
        OrdersController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate, orders: services.orders
        ).register(on: router)
        services.liveEvents.register(on: router)
        let reports = ReportSyncService(pushes: services.pushes)
        ReportsController(
            authenticator: services.authenticator, principals: services.principals, gate: services.gate,
            reports: reports, assignments: AssignmentFeed(database: services.database),
            photos: ReportPhotoService(reports: reports, attachments: services.attachments),
            schemaVersion: services.schema.version
        ).register(on: router)
        services.backOffice.register(on: router)
        return router
    }
}
