import Storage
public import SyncAPI
import SyncEngine
public import WebUI

/// The operator's settings: what devices read (`GET /v1/config`), the audited settings page
/// with its preview step, and the same preview for administrators' scripts.
public struct SettingsFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    /// Previews count with the retention job's own pass and idle timeout.
    var previewer: SettingsPreviewer {
        SettingsPreviewer(
            retention: RetentionFeature.pass(core), devices: PostgresDeviceStandingStore(database: core.database),
            webSessionIdleTimeout: core.configuration.web.idleTimeout)
    }

    public func routes(on api: APIRoutes) {
        ConfigController(schema: core.schema).register(on: api)
        SettingsPreviewController(previewer: previewer).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addSettingsPages(settings: core.settings, previewer: previewer)
    }
}
