import Storage
public import SyncAPI
import SyncEngine

/// The simple contract of report apps: `POST /v1/reports/sync`, report photos and
/// `GET /v1/assignments`.
public struct ReportsFeature: Feature {
    let core: Core
    let attachments: AttachmentService

    init(_ core: Core, attachments: AttachmentService) {
        self.core = core
        self.attachments = attachments
    }

    public func routes(on api: APIRoutes) {
        let reports = ReportSyncService(pushes: core.pushes)
        ReportsController(
            reports: reports, assignments: PostgresAssignmentReader(database: core.database),
            photos: ReportPhotoService(reports: reports, attachments: attachments),
            visits: PostgresSyncVisits(database: core.database), schemaVersion: core.schema.version
        ).register(on: api)
    }
}
