import Storage
public import SyncAPI
public import WebUI

/// The team roll-up: for supervisors' phones (`GET /v1/team/rollup`) and the back-office.
public struct TeamFeature: Feature {
    let rollups: PostgresTeamRollupStore
    let activity: PostgresActivityStore

    init(_ core: Core) {
        rollups = PostgresTeamRollupStore(database: core.database)
        activity = PostgresActivityStore(database: core.database)
    }

    public func routes(on api: APIRoutes) {
        TeamRollupController(rollups: rollups).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addTeamPage(rollups: rollups, activity: activity)
    }
}
