public import Foundation
public import Postgres
public import SyncEngine

/// Removes what a crash or an abandoned request leaves on disk: once when the server starts
/// (before it takes requests), and as the worker's `sweeps` job while it serves.
///
/// - request bodies spooled to the temporary folder (`fieldsync-body-…`) and the files cut from
///   them (`part-…` multipart parts, `chunk-…` report photo chunks): at start all of them, since
///   no request survives a restart; while serving, those unchanged for `spoolGrace`;
/// - upload session files in `uploads/` whose session is no longer open (it completed, expired
///   or was replaced while the file's deletion was lost). A session's row is committed before its
///   first chunk is written, so a file without an open row is never in use;
/// - in the blob store, copies cut short on their way from another volume (`.partial-…`) and
///   blobs no `blobs` row names. A row is written only with the attachment that names it, and
///   an attachment bound to a blob is never deleted, so these are the blobs no attachment
///   references. Both only once `grace` has passed since the file last changed: the file is
///   renamed in before its row commits. Each unreferenced blob is removed under the lock a
///   finalize of the same bytes takes, so one that finds the file there and keeps it never
///   loses it.
///
/// Files of any other name are left alone. Names are looked up, and progress reported, `batchSize` at a time.
///
/// ```swift
/// let counts = try LeftoverSweep(database: client, files: files, temporaryDirectory: tmp).sweep()
/// ```
public struct LeftoverSweep: LeftoverFiles {
    /// Body spools are `fieldsync-body-` and six random characters (mkstemp); the files cut from
    /// them are `part-` or `chunk-` and a UUID. Nothing else is touched, should the folder be shared.
    static func isSpool(_ name: String) -> Bool {
        if name.hasPrefix("fieldsync-body-") { return name.utf8.count == "fieldsync-body-".utf8.count + 6 }
        return ["part-", "chunk-"].contains { name.hasPrefix($0) && UUID(uuidString: String(name.dropFirst($0.count))) != nil }
    }

    static let partialPrefix = ".partial-"
    /// Names looked up in one query, and files handled between two progress reports.
    static let batchSize = 1_000

    let database: PostgresClient
    let files: AttachmentFiles
    let temporaryDirectory: URL
    let grace: TimeInterval
    let spoolGrace: TimeInterval

    /// - Parameters:
    ///   - grace: How long an unreferenced or partial blob file is left alone after its last
    ///     change (24 hours).
    ///   - spoolGrace: How long a spooled body is left alone after its last change: none at
    ///     start; while serving, longer than any request may take.
    public init(
        database: PostgresClient, files: AttachmentFiles, temporaryDirectory: URL, grace: TimeInterval = 86_400, spoolGrace: TimeInterval = 0
    ) {
        self.database = database
        self.files = files
        self.temporaryDirectory = temporaryDirectory
        self.grace = grace
        self.spoolGrace = spoolGrace
    }

    /// Sweeps the three folders.
    /// - Throws: a `PostgresError` when the database cannot say which files are in use; files
    ///   removed until then stay removed.
    public func sweep(now: Date = Date(), afterBatch: (SweptFiles) throws -> Void = { _ in }) throws -> SweptFiles {
        var counts = SweptFiles()
        counts.bodySpools = removeSpools(olderThan: now.addingTimeInterval(-spoolGrace))
        try afterBatch(counts)
        try removeClosedUploads(&counts, afterBatch)
        try removeBlobLeftovers(olderThan: now.addingTimeInterval(-grace), &counts, afterBatch)
        return counts
    }

    private func removeSpools(olderThan cutoff: Date) -> Int {
        let names = Self.fileNames(in: temporaryDirectory).filter(Self.isSpool)
        return names.filter { name in
            let url = temporaryDirectory.appendingPathComponent(name)
            return Self.modified(url).map { $0 <= cutoff } == true && Self.remove(url)
        }.count
    }

    private func removeClosedUploads(_ counts: inout SweptFiles, _ afterBatch: (SweptFiles) throws -> Void) throws {
        let root = files.chunks.root
        let sessions = Self.fileNames(in: root).filter { UUID(uuidString: $0) != nil }
        for batch in Self.batches(sessions) {
            let open = try database.connection { connection in
                try connection.query(
                    """
                    SELECT id::text AS id FROM attachments WHERE id::text = ANY(\(batch)::text[]) AND status = 'uploading'
                    """
                ).map { try $0.decode("id", as: String.self) }
            }
            let closed = Set(batch).subtracting(open)
            counts.uploadFiles += closed.filter { Self.remove(root.appendingPathComponent($0)) }.count
            try afterBatch(counts)
        }
    }

    /// Walks `<blobs>/ab/cd/`, removing partial copies and unreferenced blobs older than `cutoff`.
    private func removeBlobLeftovers(olderThan cutoff: Date, _ counts: inout SweptFiles, _ afterBatch: (SweptFiles) throws -> Void) throws {
        var candidates: [String] = []
        for first in Self.fileNames(in: files.blobs.root) {
            let level1 = files.blobs.root.appendingPathComponent(first, isDirectory: true)
            for second in Self.fileNames(in: level1) {
                let folder = level1.appendingPathComponent(second, isDirectory: true)
                for name in Self.fileNames(in: folder) {
                    let url = folder.appendingPathComponent(name)
                    guard let changed = Self.modified(url), changed < cutoff else { continue }
                    if name.hasPrefix(Self.partialPrefix) {
                        if Self.remove(url) { counts.partialBlobs += 1 }
                    } else if name.hasPrefix(first + second), name.utf8.count == 64 {
                        candidates.append(name)
                    }
                    if candidates.count == Self.batchSize {
                        counts.unreferencedBlobs += try removeUnreferenced(candidates)
                        candidates = []
                        try afterBatch(counts)
                    }
                }
            }
        }
        counts.unreferencedBlobs += try removeUnreferenced(candidates)
        try afterBatch(counts)
    }

    /// Removes those of `digests` no row names; returns how many it removed.
    private func removeUnreferenced(_ digests: [String]) throws -> Int {
        guard !digests.isEmpty else { return 0 }
        let stored = try database.connection { connection in
            try Set(
                connection.query("SELECT sha256 FROM blobs WHERE sha256 = ANY(\(digests)::text[])").map {
                    try $0.decode("sha256", as: String.self)
                })
        }
        var removed = 0
        for digest in digests where !stored.contains(digest) {
            // Looked up again under the lock: a finalize of these bytes may have committed since.
            let gone = try database.transaction { connection in
                try PostgresAttachmentTransaction.lockBlob(digest, on: connection)
                guard try connection.query("SELECT 1 FROM blobs WHERE sha256 = \(digest)").isEmpty else { return false }
                return (try? files.blobs.delete(digest)) == true
            }
            if gone { removed += 1 }
        }
        return removed
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
