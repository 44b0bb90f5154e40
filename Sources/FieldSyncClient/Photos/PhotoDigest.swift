import Foundation

/// A photo as its upload declares it: size, whole-file SHA-256 and one SHA-256 per chunk.
struct PhotoDigest: Sendable, Equatable {
    var byteCount: Int64
    var chunkBytes: Int
    var sha256: String
    var chunkSha256: [String]
}

/// Copies a photo into the device's own storage, hashing it on the way, one chunk at a time
/// (the photo is never held in memory whole).
enum PhotoCopier {
    /// Copies `source` to `destination` through a temporary name, flushed to disk before the
    /// rename, so `destination` only ever holds a complete copy.
    /// - Throws: `SyncClientError.photoUnreadable` when the source cannot be read; file errors.
    static func copy(_ source: URL, to destination: URL, chunkBytes: Int) throws -> PhotoDigest {
        let partial = destination.appendingPathExtension("partial")
        guard let input = try? FileHandle(forReadingFrom: source) else {
            throw SyncClientError.photoUnreadable("no readable file at \(source.lastPathComponent)")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw SyncClientError.photoUnreadable("cannot write the device copy")
        }
        let output = try FileHandle(forWritingTo: partial)
        do {
            let digest = try stream(input, into: output, chunkBytes: chunkBytes)
            try output.synchronize()
            try output.close()
            try FileManager.default.moveItem(at: partial, to: destination)
            return digest
        } catch {
            try? output.close()
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
    }

    private static func stream(_ input: FileHandle, into output: FileHandle, chunkBytes: Int) throws -> PhotoDigest {
        var whole = try SHA256Hasher()
        var chunks: [String] = []
        var total: Int64 = 0
        while let chunk = try input.read(upToCount: chunkBytes), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
            try whole.update(chunk)
            chunks.append(try SHA256Hasher.hex(chunk))
            total += Int64(chunk.count)
        }
        guard total > 0 else { throw SyncClientError.photoUnreadable("the file is empty") }
        return PhotoDigest(byteCount: total, chunkBytes: chunkBytes, sha256: try whole.finalizeHex(), chunkSha256: chunks)
    }

    /// Chunk `index` of a stored photo, read from disk.
    static func chunk(_ index: Int, of file: URL, chunkBytes: Int) throws -> Data {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(index) * UInt64(chunkBytes))
        return try handle.read(upToCount: chunkBytes) ?? Data()
    }
}
