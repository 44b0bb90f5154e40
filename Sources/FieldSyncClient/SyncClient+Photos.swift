public import Foundation
import SyncProtocol

extension SyncClient {
    /// Adds a photo to a record: the file is copied into the device's own storage (the app
    /// may delete its file afterwards), hashed chunk by chunk, and queued for a resumable
    /// upload. Put the returned id in the record's photo field; that edit then goes out with
    /// `dependsOn`, and the server applies it once the photo has arrived.
    ///
    /// The server's size limits are checked now, at capture, not at sync time.
    /// - Returns: the photo, `queued`.
    /// - Throws: ``SyncClientError/photoTooLarge(bytes:limit:)``, `.photoUnreadable`,
    ///   `.invalidIdentifier`, `.notSignedIn`.
    public func addPhoto(
        at file: URL, to collection: String, recordId: String, contentType: String = "image/jpeg"
    ) async throws -> LocalPhoto {
        for id in [collection, recordId] where !DeviceIdentifier.isValid(id) { throw SyncClientError.invalidIdentifier(id) }
        let device = try await store.device()
        guard device.session != .signedOut else { throw SyncClientError.notSignedIn }
        let size = try Self.byteCount(of: file)
        guard size <= device.limits.maxAttachmentBytes else {
            throw SyncClientError.photoTooLarge(bytes: size, limit: device.limits.maxAttachmentBytes)
        }
        let recordTotal = try await store.photoBytes(collection: collection, recordId: recordId) + size
        guard recordTotal <= device.limits.maxAttachmentBytesPerRecord else {
            throw SyncClientError.photoTooLarge(bytes: recordTotal, limit: device.limits.maxAttachmentBytesPerRecord)
        }
        let attId = "att-" + UUID().uuidString.lowercased()
        let copy = store.photoFile(named: attId)
        let chunkBytes = device.limits.chunkBytes
        let digest = try await offCooperativePool { try PhotoCopier.copy(file, to: copy, chunkBytes: chunkBytes) }
        let row = PhotoRow(attId: attId, collection: collection, recordId: recordId, contentType: contentType, fileName: attId, digest: digest)
        let photo: LocalPhoto
        do {
            photo = try await store.insertPhoto(row)
        } catch {
            try? FileManager.default.removeItem(at: copy)
            throw error
        }
        try await refreshStatus()
        signals.signal(.localChange)
        return photo
    }

    /// The photos of a record, in the order they were added, with their upload state.
    public func photos(of collection: String, recordId: String) async throws -> [LocalPhoto] {
        try await store.photos(collection: collection, recordId: recordId)
    }

    private static func byteCount(of file: URL) throws -> Int64 {
        guard let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber else {
            throw SyncClientError.photoUnreadable("no file at \(file.lastPathComponent)")
        }
        return size.int64Value
    }
}

/// Runs blocking file work on a global queue, leaving the cooperative pool's few threads free.
func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
