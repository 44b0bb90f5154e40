import Storage
public import WebUI

/// The back-office's sync centre: devices, their journals, record histories.
public struct SyncCentreFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addSyncCentrePages(
            store: PostgresSyncCentreStore(database: core.database), settings: core.settings, photos: core.recordPhotos,
            activity: PostgresActivityStore(database: core.database))
    }
}
