import Foundation

/// Received chunks of upload sessions on disk: `<root>/<session-uuid>/<index>`.
///
/// Paths are built from the server-generated session UUID and an integer index only, never
/// from a client-supplied string. A chunk counts as received only once its database row
/// exists, and the row is written after `store` has flushed the file and its directory, so a
/// file left half-written by a crash is never trusted (it is overwritten when re-sent).
public struct ChunkStore: Sendable {
    public let root: URL

    /// Uses (and creates when missing) the directory `root`.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        try DurableFiles.createDirectory(self.root)
    }

    /// Moves the received body `file` into place as chunk `index` (replacing an earlier copy
    /// of the same chunk) and flushes it there.
    ///
    /// Renaming before flushing lets file systems such as ext4 commit the new inode and the
    /// rename in one journal commit instead of two; it is safe because the chunk only counts
    /// once its row is written, after this returns.
    func store(_ file: URL, session: UUID, index: Int) throws {
        let folder = directory(of: session)
        try DurableFiles.createDirectory(folder)
        let destination = chunk(index, of: session)
        try DurableFiles.rename(file, to: destination)
        try DurableFiles.sync(destination)
        try DurableFiles.syncDirectory(folder)
    }

    /// The file of chunk `index`.
    func chunk(_ index: Int, of session: UUID) -> URL {
        directory(of: session).appendingPathComponent(String(index), isDirectory: false)
    }

    /// A path inside the session's folder for the reassembled file (so it is on the same file
    /// system as the chunks, and deleted with them).
    func assemblyFile(of session: UUID) -> URL {
        directory(of: session).appendingPathComponent("assembled-\(UUID().uuidString)", isDirectory: false)
    }

    /// Deletes the listed chunks; missing files are fine.
    func remove(_ indexes: [Int], of session: UUID) {
        for index in indexes { unlink(chunk(index, of: session).path) }
    }

    /// Deletes a session's folder and everything in it; a missing folder is fine.
    func removeSession(_ session: UUID) {
        try? FileManager.default.removeItem(at: directory(of: session))
    }

    private func directory(of session: UUID) -> URL {
        root.appendingPathComponent(session.uuidString.lowercased(), isDirectory: true)
    }
}
