import Storage
import SyncEngine
public import WebUI

/// The back-office dashboard: what needs attention now.
public struct DashboardFeature: Feature {
    let core: Core
    let activity: any ActivityStore

    init(_ core: Core, activity: any ActivityStore) {
        self.core = core
        self.activity = activity
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addDashboard(
            counts: PostgresDashboardStore(database: core.database), settings: core.settings, jobRuns: PostgresJobRunStore(database: core.database),
            activity: activity)
    }
}
