import Foundation

/// Received chunks of upload sessions on disk: `<root>/<session-uuid>/<index>`.
///
/// Paths are built from the server-generated session UUID and an integer index only, never
/// from a client-supplied string. A chunk appears by atomic rename of a flushed file, so a
/// stored chunk is always complete.
public struct ChunkStore: Sendable {
    public let root: URL

    /// Uses (and creates when missing) the directory `root`.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        try DurableFiles.createDirectory(self.root)
    }

    /// Moves the received, already flushed body `file` into place as chunk `index`,
    /// replacing an earlier copy of the same chunk.
    func store(_ file: URL, session: UUID, index: Int) throws {
        let folder = directory(of: session)
        try DurableFiles.createDirectory(folder)
        try DurableFiles.move(file, to: chunk(index, of: session))
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
