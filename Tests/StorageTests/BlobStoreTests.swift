import Cryptography
import Foundation
import Storage
import SyncEngine
import Testing

@Suite("Content-addressed blob store on disk")
struct BlobStoreTests {
    let scratch: URL
    let blobs: FileBlobStore

    init() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-blobs-\(UUID().uuidString)")
        blobs = try FileBlobStore(root: scratch.appendingPathComponent("blobs"))
    }

    /// Writes `bytes` to a new file outside the store and returns it with its digest.
    func file(_ bytes: Data, in directory: URL? = nil) throws -> (url: URL, sha256: String) {
        let folder = directory ?? scratch.appendingPathComponent("incoming")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(UUID().uuidString)
        try bytes.write(to: url)
        return (url, SHA256.hash(bytes).hexString)
    }

    func contents(_ root: URL) -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test("A verified file is moved to ab/cd/<sha256> and read back whole")
    func storesUnderDigestPath() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let (source, sha256) = try file(bytes)
        #expect(try blobs.put(source, sha256: sha256) == .stored)
        #expect(!FileManager.default.fileExists(atPath: source.path))
        let blob = try #require(try blobs.open(sha256))
        #expect(blob.url.path.hasSuffix("/blobs/\(sha256.prefix(2))/\(sha256.dropFirst(2).prefix(2))/\(sha256)"))
        #expect(blob.size == Int64(bytes.count))
        #expect(try Data(contentsOf: blob.url) == bytes)
        #expect(try blobs.exists(sha256))
        #expect(try FileDigest.sha256(of: blob.url) == (sha256, Int64(bytes.count)))
    }

    @Test("A file whose bytes do not hash to the name is refused and left where it was")
    func refusesMismatch() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (source, _) = try file(Data("photo".utf8))
        let claimed = SHA256.hash(Data("another photo".utf8)).hexString
        #expect(throws: BlobStoreError.checksumMismatch(actual: SHA256.hash(Data("photo".utf8)).hexString)) {
            try blobs.put(source, sha256: claimed)
        }
        #expect(FileManager.default.fileExists(atPath: source.path))
        #expect(try blobs.open(claimed) == nil)
        #expect(contents(blobs.root).isEmpty)
    }

    @Test("The same bytes twice are stored once; the second file is discarded")
    func deduplicates() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (first, sha256) = try file(Data("same photo".utf8))
        let (second, _) = try file(Data("same photo".utf8))
        #expect(try blobs.put(first, sha256: sha256) == .stored)
        #expect(try blobs.put(second, sha256: sha256) == .alreadyStored)
        #expect(!FileManager.default.fileExists(atPath: second.path))
        #expect(contents(blobs.root).filter { $0.count > 10 } == ["\(sha256.prefix(2))/\(sha256.dropFirst(2).prefix(2))/\(sha256)"])
    }

    @Test(
        "Names that are not lowercase hex SHA-256 never become paths",
        arguments: [
            "../../etc/passwd", String(repeating: "A", count: 64), String(repeating: "a", count: 63), "",
            "../" + String(repeating: "a", count: 61),
        ])
    func refusesNonDigests(name: String) throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (source, _) = try file(Data("x".utf8))
        #expect(throws: BlobStoreError.invalidDigest) { try blobs.put(source, sha256: name) }
        #expect(throws: BlobStoreError.invalidDigest) { try blobs.open(name) }
        #expect(throws: BlobStoreError.invalidDigest) { try blobs.delete(name) }
        #expect(contents(blobs.root).isEmpty)
    }

    @Test("Deleting removes the blob; deleting again reports it absent")
    func deletes() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (source, sha256) = try file(Data("to delete".utf8))
        _ = try blobs.put(source, sha256: sha256)
        #expect(try blobs.delete(sha256))
        #expect(try !blobs.exists(sha256))
        #expect(try !blobs.delete(sha256))
    }

    @Test(
        "A blob directory on another file system receives blobs by copy and rename",
        .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm"), "needs /dev/shm (tmpfs) beside the temp directory")
    )
    func crossesFileSystems() throws {
        let other = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("fieldsync-blobs-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: other)
        }
        let remote = try FileBlobStore(root: other)
        let bytes = Data(repeating: 7, count: 3 << 20)
        let (source, sha256) = try file(bytes)
        #expect(try remote.put(source, sha256: sha256) == .stored)
        #expect(!FileManager.default.fileExists(atPath: source.path))
        #expect(try Data(contentsOf: try #require(try remote.open(sha256)).url) == bytes)
        #expect(contents(other).allSatisfy { !$0.contains(".partial-") })
    }
}
