import Storage
public import SyncAPI
public import WebUI

/// Conflicts that need a person: listed and resolved by devices (`/v1/conflicts`) and in the
/// back-office.
public struct ConflictsFeature: Feature {
    let core: Core
    let conflicts: PostgresConflictStore

    init(_ core: Core) {
        self.core = core
        conflicts = PostgresConflictStore(database: core.database)
    }

    public func routes(on api: APIRoutes) {
        ConflictsController(conflicts: conflicts, changes: core.changes).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addConflictPages(
            conflicts: conflicts, changes: core.changes, photos: core.recordPhotos, activity: PostgresActivityStore(database: core.database))
    }
}
