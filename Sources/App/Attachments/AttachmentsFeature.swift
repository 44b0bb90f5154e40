import Storage
public import SyncAPI
public import SyncEngine
public import Worker

/// Resumable uploads and downloads of attachments (`/v1/attachments/…`), and the job that
/// sweeps expired upload sessions.
public struct AttachmentsFeature: Feature {
    public let service: AttachmentService

    init(_ core: Core) throws {
        let files = try AttachmentFiles(dataDirectory: core.configuration.dataDirectory, blobDirectory: core.configuration.blobDirectory)
        service = AttachmentService(
            store: PostgresAttachmentStore(database: core.database), blobs: files.blobs, chunks: files.chunks, settings: core.settings,
            collections: Set(core.schema.collections.keys), listener: DeferredOpRelease(pushes: core.pushes, logger: core.logger),
            logger: core.logger)
    }

    public func routes(on api: APIRoutes) {
        AttachmentsController(uploads: service).register(on: api)
    }

    public var jobs: [any Job] { [UploadSessionJob(attachments: service)] }
}
