import Storage
import SyncEngine

extension Application {
    /// What FieldSync is made of. Back-office pages appear in the navigation in this order.
    static func features(_ core: Core) throws -> [any Feature] {
        let attachments = try AttachmentsFeature(core)
        // One cache for every page with an activity chart, so the dashboard and the team page
        // count a team's two weeks once between them; a count (per team and day) is kept a
        // minute, a lag a two-week chart does not show.
        let activity = CachedOpOutcomes(PostgresActivityStore(database: core.database), lifetime: 60)
        return [
            HealthFeature(core),
            try ContractFeature(core),
            try SyncFeature(core),
            attachments,
            ReportsFeature(core, attachments: attachments.service),
            DashboardFeature(core, activity: activity),
            OrdersFeature(core),
            AssignmentsFeature(core),
            ConflictsFeature(core, activity: activity),
            SyncCentreFeature(core, activity: activity),
            TeamFeature(core, activity: activity),
            SearchFeature(core),
            AccountsFeature(core),
            SettingsFeature(core),
            LiveFeedFeature(core),
            RetentionFeature(core),
        ]
    }
}
