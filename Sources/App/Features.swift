extension Application {
    /// What FieldSync is made of. Back-office pages appear in the navigation in this order.
    static func features(_ core: Core) throws -> [any Feature] {
        let attachments = try AttachmentsFeature(core)
        return [
            HealthFeature(core),
            try ContractFeature(core),
            try SyncFeature(core),
            attachments,
            ReportsFeature(core, attachments: attachments.service),
            DashboardFeature(core),
            OrdersFeature(core),
            AssignmentsFeature(core),
            ConflictsFeature(core),
            SyncCentreFeature(core),
            TeamFeature(core),
            SearchFeature(core),
            AccountsFeature(core),
            SettingsFeature(core),
            LiveFeedFeature(core),
            RetentionFeature(core),
        ]
    }
}
