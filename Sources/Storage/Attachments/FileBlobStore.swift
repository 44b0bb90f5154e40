public import Foundation
public import SyncEngine

/// A `BlobStore` on the local file system: `<root>/ab/cd/<sha256>` for the digest `abcd…`.
///
/// Two directory levels of 256 entries keep every directory small. A blob appears by an
/// atomic rename of a flushed file, followed by a flush of its directory, so after a crash a
/// blob is either absent or complete.
///
/// ```swift
/// let blobs = try FileBlobStore(root: dataDirectory.appendingPathComponent("blobs"))
/// ```
public struct FileBlobStore: BlobStore {
    public let root: URL

    /// Uses (and creates when missing) the directory `root`.
    /// - Throws: `POSIXError` when it cannot be created.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        try DurableFiles.createDirectory(self.root)
    }

    public func put(_ file: URL, sha256: String) throws -> BlobPutOutcome {
        let destination = try location(of: sha256)
        let actual = try FileDigest.sha256(of: file).hex
        guard actual == sha256 else { throw BlobStoreError.checksumMismatch(actual: actual) }
        if FileManager.default.fileExists(atPath: destination.path) {
            try FileManager.default.removeItem(at: file)
            return .alreadyStored
        }
        try DurableFiles.sync(file)
        try DurableFiles.createDirectory(destination.deletingLastPathComponent())
        // A concurrent put of the same digest renames identical bytes over ours: harmless.
        try DurableFiles.move(file, to: destination)
        return .stored
    }

    public func open(_ sha256: String) throws -> BlobFile? {
        let url = try location(of: sha256)
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw POSIXError.current()
        }
        return BlobFile(url: url, size: Int64(status.st_size))
    }

    public func exists(_ sha256: String) throws -> Bool {
        try open(sha256) != nil
    }

    public func delete(_ sha256: String) throws -> Bool {
        let url = try location(of: sha256)
        guard unlink(url.path) == 0 else {
            if errno == ENOENT { return false }
            throw POSIXError.current()
        }
        try DurableFiles.syncDirectory(url.deletingLastPathComponent())
        return true
    }

    /// The path of a blob; only a validated digest ever becomes a path component.
    private func location(of sha256: String) throws -> URL {
        guard FileDigest.isHexSHA256(sha256) else { throw BlobStoreError.invalidDigest }
        return root.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(String(sha256.dropFirst(2).prefix(2)), isDirectory: true)
            .appendingPathComponent(sha256, isDirectory: false)
    }
}
