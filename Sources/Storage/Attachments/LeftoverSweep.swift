public import Foundation
public import Postgres

/// Removes what a crash leaves on disk, once, when the server starts (before it takes requests):
///
/// - request bodies spooled to the temporary folder (`fieldsync-body-…`) and the files cut from
///   them (`part-…` multipart parts, `chunk-…` report photo chunks): no request survives a restart;
/// - upload session files in `uploads/` whose session is no longer open (it completed, expired
///   or was replaced while the file's deletion was lost). A session's row is committed before its
///   first chunk is written, so a file without an open row is never in use;
/// - in the blob store, copies cut short on their way from another volume (`.partial-…`) and
///   blobs no `blobs` row names (the file is renamed in before its row commits, so a crash
///   between them leaves one). Both only once `grace` has passed since the file last changed,
///   because servers sharing one blob folder may be between those two steps right now.
///
/// Files of any other name are left alone.
///
/// ```swift
/// let counts = try LeftoverSweep(database: client, files: files, temporaryDirectory: tmp).run()
/// ```
public struct LeftoverSweep: Sendable {
    /// How many files of each kind were removed.
    public struct Counts: Sendable, Equatable, CustomStringConvertible {
        public var bodySpools = 0
        public var uploadFiles = 0
        public var partialBlobs = 0
        public var unreferencedBlobs = 0

        public init() {}

        public var description: String {
            "\(bodySpools) body spools, \(uploadFiles) upload files, \(partialBlobs) partial blobs, \(unreferencedBlobs) unreferenced blobs"
        }
    }

    /// Body spools are `fieldsync-body-` and six random characters (mkstemp); the files cut from
    /// them are `part-` or `chunk-` and a UUID. Nothing else is touched, should the folder be shared.
    static func isSpool(_ name: String) -> Bool {
        if name.hasPrefix("fieldsync-body-") { return name.utf8.count == "fieldsync-body-".utf8.count + 6 }
        return ["part-", "chunk-"].contains { name.hasPrefix($0) && UUID(uuidString: String(name.dropFirst($0.count))) != nil }
    }

    static let partialPrefix = ".partial-"
    /// Names looked up in one query.
    static let batchSize = 1_000

    let database: PostgresClient
    let files: AttachmentFiles
    let temporaryDirectory: URL
    let grace: TimeInterval

    /// - Parameter grace: how long an unreferenced or partial blob file is left alone after its
    ///   last change (24 hours).
    public init(database: PostgresClient, files: AttachmentFiles, temporaryDirectory: URL, grace: TimeInterval = 86_400) {
        self.database = database
        self.files = files
        self.temporaryDirectory = temporaryDirectory
        self.grace = grace
    }

    /// Sweeps the three folders.
    /// - Throws: a `PostgresError` when the database cannot say which files are in use; files
    ///   removed until then stay removed.
    public func run(now: Date = Date()) throws -> Counts {
        var counts = Counts()
        counts.bodySpools = removeSpools()
        counts.uploadFiles = try removeClosedUploads()
        (counts.partialBlobs, counts.unreferencedBlobs) = try removeBlobLeftovers(olderThan: now.addingTimeInterval(-grace))
        return counts
    }

    private func removeSpools() -> Int {
        let names = Self.fileNames(in: temporaryDirectory).filter(Self.isSpool)
        return names.filter { Self.remove(temporaryDirectory.appendingPathComponent($0)) }.count
    }

    private func removeClosedUploads() throws -> Int {
        let root = files.chunks.root
        let sessions = Self.fileNames(in: root).filter { UUID(uuidString: $0) != nil }
        var removed = 0
        for batch in Self.batches(sessions) {
            let open = try database.connection { connection in
                try connection.query(
                    """
                    SELECT id::text AS id FROM attachments WHERE id::text = ANY(\(batch)::text[]) AND status = 'uploading'
                    """
                ).map { try $0.decode("id", as: String.self) }
            }
            let closed = Set(batch).subtracting(open)
            removed += closed.filter { Self.remove(root.appendingPathComponent($0)) }.count
        }
        return removed
    }

    /// Walks `<blobs>/ab/cd/`; returns how many partial copies and unreferenced blobs it removed.
    private func removeBlobLeftovers(olderThan cutoff: Date) throws -> (partial: Int, unreferenced: Int) {
        var partial = 0
        var candidates: [URL] = []
        for first in Self.fileNames(in: files.blobs.root) {
            let level1 = files.blobs.root.appendingPathComponent(first, isDirectory: true)
            for second in Self.fileNames(in: level1) {
                let folder = level1.appendingPathComponent(second, isDirectory: true)
                for name in Self.fileNames(in: folder) {
                    let url = folder.appendingPathComponent(name)
                    guard let changed = Self.modified(url), changed < cutoff else { continue }
                    if name.hasPrefix(Self.partialPrefix) {
                        if Self.remove(url) { partial += 1 }
                    } else if name.hasPrefix(first + second), name.utf8.count == 64 {
                        candidates.append(url)
                    }
                }
            }
        }
        var unreferenced = 0
        for batch in Self.batches(candidates) {
            let digests = batch.map(\.lastPathComponent)
            let stored = try database.connection { connection in
                try Set(
                    connection.query("SELECT sha256 FROM blobs WHERE sha256 = ANY(\(digests)::text[])").map {
                        try $0.decode("sha256", as: String.self)
                    })
            }
            for digest in digests where !stored.contains(digest) {
                if (try? files.blobs.delete(digest)) == true { unreferenced += 1 }
            }
        }
        return (partial, unreferenced)
    }

    // MARK: - Files

    /// The entries of `directory`; none when it is missing or unreadable.
    private static func fileNames(in directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// Unlinks a regular file; false for anything else or when it is already gone.
    private static func remove(_ url: URL) -> Bool {
        var status = stat()
        guard lstat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        return unlink(url.path) == 0
    }

    private static func batches<T>(_ items: [T]) -> [[T]] {
        stride(from: 0, to: items.count, by: batchSize).map { Array(items[$0..<min($0 + batchSize, items.count)]) }
    }
}
