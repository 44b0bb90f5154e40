import Storage
public import SyncAPI
import SyncEngine
public import WebUI

/// Conflicts that need a person: listed and resolved by devices (`/v1/conflicts`) and in the
/// back-office.
public struct ConflictsFeature: Feature {
    let core: Core
    let conflicts: PostgresConflictStore
    let activity: any ActivityStore

    init(_ core: Core, activity: any ActivityStore) {
        self.core = core
        conflicts = PostgresConflictStore(database: core.database)
        self.activity = activity
    }

    public func routes(on api: APIRoutes) {
        ConflictsController(conflicts: conflicts, changes: core.changes).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addConflictPages(conflicts: conflicts, changes: core.changes, photos: core.recordPhotos, activity: activity)
    }
}
