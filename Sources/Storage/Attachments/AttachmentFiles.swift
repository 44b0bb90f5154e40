public import Foundation

/// Where attachment bytes live on disk: chunks of open sessions in `<data>/uploads`, finished
/// blobs in `<data>/blobs` unless an operator points them elsewhere (another volume is fine:
/// blobs then arrive by copy, flush and rename instead of a plain rename).
public struct AttachmentFiles: Sendable {
    public let chunks: ChunkStore
    public let blobs: FileBlobStore

    /// Creates the directories when missing.
    /// - Throws: `POSIXError` when a directory cannot be created.
    public init(dataDirectory: URL, blobDirectory: URL?) throws {
        chunks = try ChunkStore(root: dataDirectory.appendingPathComponent("uploads", isDirectory: true))
        blobs = try FileBlobStore(root: blobDirectory ?? dataDirectory.appendingPathComponent("blobs", isDirectory: true))
    }
}
