import Storage
import SyncEngine
public import WebUI

/// The back-office's sync centre: devices, their journals, record histories.
public struct SyncCentreFeature: Feature {
    let core: Core
    let activity: any ActivityStore

    init(_ core: Core, activity: any ActivityStore) {
        self.core = core
        self.activity = activity
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addSyncCentrePages(
            store: PostgresSyncCentreStore(database: core.database), settings: core.settings, photos: core.recordPhotos, activity: activity)
    }
}
