import Cryptography
public import Foundation

/// SHA-256 of files, read in 1 MiB pieces so a 50 MB upload never sits in memory.
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `url` and its size.
    /// - Throws: when the file cannot be read.
    public static func sha256(of url: URL) throws -> (hex: String, size: Int64) {
        let file = try FileHandle(forReadingFrom: url)
        defer { try? file.close() }
        var hasher = try SHA256()
        var size: Int64 = 0
        while let piece = try file.read(upToCount: 1 << 20), !piece.isEmpty {
            try hasher.update(piece)
            size += Int64(piece.count)
        }
        return (try hasher.finalize().hexString, size)
    }

    /// Whether `text` is a SHA-256 in lowercase hex, the only form used as a blob name.
    public static func isHexSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
