public import SyncEngine

/// Deletes upload sessions inactive for longer than the upload-session window, with their spooled chunks.
public struct UploadSessionJob: Job {
    public let name = "upload-sessions"
    private let attachments: AttachmentService

    public init(attachments: AttachmentService) {
        self.attachments = attachments
    }

    public func run() throws -> String {
        var removed = 0
        while true {
            let batch = try attachments.purgeExpiredSessions(limit: 500)
            removed += batch
            if batch < 500 { return "removed \(removed) expired upload sessions" }
        }
    }
}
