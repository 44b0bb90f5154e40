import Storage
public import SyncAPI
import SyncEngine
public import WebUI

/// The team roll-up: for supervisors' phones (`GET /v1/team/rollup`) and the back-office.
public struct TeamFeature: Feature {
    let rollups: PostgresTeamRollupStore
    let activity: any ActivityStore

    init(_ core: Core, activity: any ActivityStore) {
        rollups = PostgresTeamRollupStore(database: core.database)
        self.activity = activity
    }

    public func routes(on api: APIRoutes) {
        TeamRollupController(rollups: rollups).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addTeamPage(rollups: rollups, activity: activity)
    }
}
