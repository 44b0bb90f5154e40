public import Foundation
public import SyncEngine

/// The bytes of open upload sessions: one sparse file per session, `<root>/<session-uuid>`,
/// holding chunk `i` at offset `i × chunkBytes`.
///
/// Writing each verified chunk straight to its place means the finished file is already
/// assembled: finalize only hashes it and renames it into the blob store, and every byte
/// reaches the disk once (the request body's temporary file is deleted before write-back).
/// A chunk counts as received only once its database row exists, and the row is written
/// after `write` has flushed the bytes, so a region left half-written by a crash is never
/// trusted; it is overwritten when the chunk is sent again.
///
/// Paths are built from the server-generated session UUID only, never from client input.
public struct ChunkStore: ChunkSpool {
    public let root: URL

    /// Uses (and creates when missing) the directory `root`.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        try DurableFiles.createDirectory(self.root)
    }

    /// Copies the verified request body `body` into the session's file at `offset` and
    /// flushes it (and the directory entry, when this write created the file).
    public func write(_ body: URL, session: UUID, at offset: Int64) throws {
        let destination = file(of: session)
        let (output, created) = try Self.openForWriting(destination)
        let input = try OpenFile(body, flags: O_RDONLY)
        try DurableFiles.withCopyBuffer { buffer in
            var position = offset
            var count = try input.read(into: buffer)
            while count > 0 {
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: position)
                position += Int64(count)
                count = try input.read(into: buffer)
            }
        }
        try output.syncData()
        try output.close()
        if created { try DurableFiles.syncDirectory(root) }
    }

    /// The session's file: complete once every chunk is recorded.
    public func file(of session: UUID) -> URL {
        root.appendingPathComponent(session.uuidString.lowercased(), isDirectory: false)
    }

    /// Deletes a session's file; a missing file is fine.
    public func removeSession(_ session: UUID) {
        unlink(file(of: session).path)
    }

    /// Opens `url` for writing, creating it when missing; says whether it was created.
    private static func openForWriting(_ url: URL) throws -> (OpenFile, created: Bool) {
        do {
            return (try OpenFile(url, flags: O_WRONLY | O_CREAT | O_EXCL), true)
        } catch POSIXError.EEXIST {
            return (try OpenFile(url, flags: O_WRONLY), false)
        }
    }
}
