import App
import Foundation
import Seeding
import Storage
import SyncEngine

/// Photos for `fieldsync bench web`: one small PNG stored in the server's blob store and named
/// by a few reports, so the record history with thumbnails and the photo route are timed.
enum BenchPhotos {
    /// A 4 × 3 PNG.
    static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAEElEQVR4nGM4oSEHRww4OQD+6wyplxsryQAAAABJRU5ErkJggg==")!

    /// Stores the PNG as a blob and gives `count` reports photos; returns the pages to time.
    static func pages(_ core: Core, seeder: BackOfficeSeeder, count: Int = 10) throws -> [WebPage] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-bench-photo-\(UUID().uuidString)")
        try png.write(to: file)
        let sha256 = try FileDigest.sha256(of: file).hex
        let files = try AttachmentFiles(dataDirectory: core.configuration.dataDirectory, blobDirectory: core.configuration.blobDirectory)
        _ = try files.blobs.put(file, sha256: sha256)
        let seeded = try seeder.seedPhotos(blob: sha256, size: png.count, contentType: "image/png", count: count)
        return [
            WebPage(name: "record history with photos", targets: seeded.recordIds.map { "/admin/sync/records/reports/\($0)" }),
            WebPage(name: "photo", targets: seeded.photoIds.map { "/admin/photos/\($0)" }),
        ]
    }
}
