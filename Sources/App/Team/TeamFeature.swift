import Storage
public import SyncAPI
import SyncEngine
public import WebUI

/// The team roll-up: for supervisors' phones (`GET /v1/team/rollup`) and the back-office.
public struct TeamFeature: Feature {
    let rollups: PostgresTeamRollupStore
    let activity: CachedOpOutcomes

    init(_ core: Core) {
        rollups = PostgresTeamRollupStore(database: core.database)
        activity = CachedOpOutcomes(PostgresActivityStore(database: core.database), lifetime: ActivityCaching.lifetime)
    }

    public func routes(on api: APIRoutes) {
        TeamRollupController(rollups: rollups).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addTeamPage(rollups: rollups, activity: activity)
    }
}
