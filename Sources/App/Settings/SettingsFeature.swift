public import SyncAPI
public import WebUI

/// The operator's settings: what devices read (`GET /v1/config`) and the audited settings page.
public struct SettingsFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public func routes(on api: APIRoutes) {
        ConfigController(schema: core.schema).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addSettingsPages(settings: core.settings)
    }
}
