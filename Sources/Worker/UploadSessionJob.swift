public import SyncEngine

/// Deletes upload sessions inactive for longer than the upload-session window, with their
/// spooled chunks, 500 at a time.
public struct UploadSessionJob: Job {
    public let name = "upload-sessions"
    public let summary = "Removes unfinished uploads past their expiry, with their stored chunks."
    private let attachments: AttachmentService
    private let batchSize = 500

    public init(attachments: AttachmentService) {
        self.attachments = attachments
    }

    public func schedule(in settings: ServerSettings) -> JobSchedule {
        JobSchedule(minutes: settings.uploadSessionsJobMinutes)
    }

    public func run(_ progress: JobProgress) throws {
        var removed = 0
        while true {
            let batch = try attachments.purgeExpiredSessions(limit: batchSize)
            removed += batch
            try progress.report(done: removed, total: nil, counts: ["uploadSessions": removed])
            if batch < batchSize { return }
        }
    }
}
