import Foundation
import Storage
public import SyncAPI
public import SyncEngine
public import Worker

/// Push and pull (`/v1/sync/…`): the device side of the sync engine.
public struct SyncFeature: Feature {
    let core: Core
    /// Signs and checks pull cursors; the key is shared by every process on the database.
    public let cursors: PullCursorCodec

    init(_ core: Core) throws {
        self.core = core
        let key = try core.configuration.cursorSecret.map { Data($0.utf8) } ?? core.secret(named: "pull-cursor")
        cursors = PullCursorCodec(key: key)
    }

    /// The job that upgrades stored records when the schema version rises.
    public var jobs: [any Job] { [RecordMigrationJob(migration: RecordMigration(store: core.syncStore, schema: core.schema))] }

    public func routes(on api: APIRoutes) {
        let pulls = PullService(
            reader: PostgresPullReader(database: core.database), cursors: cursors, maxPageBytes: core.configuration.maxPullPageBytes)
        SyncController(pushes: core.pushes, pulls: pulls, visits: PostgresSyncVisits(database: core.database), schema: core.schema)
            .register(on: api)
    }
}
