import Foundation
public import SyncEngine

/// The `sweeps` job: deletes upload sessions inactive for longer than the upload-session
/// window (with their stored chunks), 500 at a time, then the files nothing uses any more
/// (see `LeftoverFiles`), each batch's counts recorded in the run as it goes.
public struct SweepJob: Job {
    public let name = "sweeps"
    public let summary = "Removes expired uploads with their chunks, abandoned request spools, and blob files no attachment uses."
    private let attachments: AttachmentService
    private let leftovers: any LeftoverFiles
    private let batchSize = 500

    public init(attachments: AttachmentService, leftovers: any LeftoverFiles) {
        self.attachments = attachments
        self.leftovers = leftovers
    }

    public func schedule(in settings: ServerSettings) -> JobSchedule {
        JobSchedule(minutes: settings.uploadSessionsJobMinutes)
    }

    public func run(_ progress: JobProgress) throws {
        var sessions = 0
        while true {
            let batch = try attachments.purgeExpiredSessions(limit: batchSize)
            sessions += batch
            try progress.report(done: sessions, total: nil, counts: ["uploadSessions": sessions])
            if batch < batchSize { break }
        }
        let files = try leftovers.sweep(now: Date()) { files in
            try progress.report(done: sessions + files.total, total: nil, counts: files.named.merging(["uploadSessions": sessions]) { $1 })
        }
        let total = sessions + files.total
        try progress.report(done: total, total: total, counts: files.named.merging(["uploadSessions": sessions]) { $1 })
    }
}
