public import Foundation
import Storage
import Support
public import SyncAPI
public import SyncEngine
public import WebUI
public import Worker

/// Resumable uploads and downloads of attachments (`/v1/attachments/…`), and the job that
/// sweeps expired upload sessions and the files nothing uses any more.
public struct AttachmentsFeature: Feature {
    public let service: AttachmentService
    let core: Core
    let files: AttachmentFiles

    init(_ core: Core) throws {
        let files = try AttachmentFiles(dataDirectory: core.configuration.dataDirectory, blobDirectory: core.configuration.blobDirectory)
        self.core = core
        self.files = files
        service = AttachmentService(
            store: PostgresAttachmentStore(database: core.database), blobs: files.blobs, chunks: files.chunks, settings: core.settings,
            collections: Set(core.schema.collections.keys), listener: DeferredOpRelease(pushes: core.pushes, logger: core.logger),
            logger: core.logger)
    }

    public func routes(on api: APIRoutes) {
        AttachmentsController(uploads: service).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addPhotoPages(store: PostgresPhotoStore(database: core.database), blobs: files.blobs)
    }

    public var jobs: [any Job] {
        // While serving, a spool may belong to a request under way: only those a day old go.
        let leftovers = LeftoverSweep(
            database: core.database, files: files, temporaryDirectory: core.configuration.spoolDirectory, spoolGrace: 86_400)
        return [SweepJob(attachments: service, leftovers: leftovers)]
    }

    /// Removes the request spools, upload files and blob files a crash left behind (see
    /// `LeftoverSweep`), logging how many; a sweep that fails is logged and does not stop the start.
    public func sweepLeftovers(temporaryDirectory: URL, now: Date = Date()) {
        do {
            let counts = try LeftoverSweep(database: core.database, files: files, temporaryDirectory: temporaryDirectory).sweep(now: now)
            core.logger.notice(
                "swept files left by an earlier run: \(counts)",
                metadata: [
                    "sweep.body_spools": "\(counts.bodySpools)", "sweep.upload_files": "\(counts.uploadFiles)",
                    "sweep.partial_blobs": "\(counts.partialBlobs)", "sweep.unreferenced_blobs": "\(counts.unreferencedBlobs)",
                ])
        } catch {
            core.logger.error("sweeping files left by an earlier run failed", metadata: ["error": "\(error)"])
        }
    }
}
