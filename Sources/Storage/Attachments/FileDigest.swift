import Cryptography
import Foundation

/// SHA-256 of files, read in 1 MiB pieces so a 50 MB upload never sits in memory.
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `url` and its size.
    /// - Throws: `POSIXError` when the file cannot be read.
    public static func sha256(of url: URL) throws -> (hex: String, size: Int64) {
        let file = try OpenFile(url, flags: O_RDONLY)
        var hasher = try SHA256()
        var size: Int64 = 0
        try DurableFiles.withCopyBuffer { buffer in
            var count = try file.read(into: buffer)
            while count > 0 {
                try hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                size += Int64(count)
                count = try file.read(into: buffer)
            }
        }
        return (try hasher.finalize().hexString, size)
    }

    /// Whether `text` is a SHA-256 in lowercase hex, the only form used as a blob name.
    public static func isHexSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
