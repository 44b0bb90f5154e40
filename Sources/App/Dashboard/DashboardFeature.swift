import Storage
import SyncEngine
public import WebUI

/// The back-office dashboard: what needs attention now.
public struct DashboardFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addDashboard(
            counts: PostgresDashboardStore(database: core.database), settings: core.settings, jobRuns: PostgresJobRunStore(database: core.database),
            activity: CachedOpOutcomes(PostgresActivityStore(database: core.database), lifetime: ActivityCaching.lifetime))
    }
}
