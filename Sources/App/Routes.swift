import HTTP
import SyncAPI

/// Every route of the server, in one place.
enum Routes {
    static let version = "0.1.0"

    static func build(_ services: Services) -> Router {
        let router = Router()
        HealthController(database: services.database, version: version).register(on: router)
        AuthController(
            login: services.login, accounts: services.accounts, settings: services.settings,
            authenticator: services.authenticator
        ).register(on: router)
        ConfigController(settings: services.settings, schema: services.schema, authenticator: services.authenticator).register(on: router)
        AttachmentsController(
            authenticator: services.authenticator, gate: services.gate, accounts: services.accounts, uploads: services.attachments
        ).register(on: router)
        return router
    }
}
