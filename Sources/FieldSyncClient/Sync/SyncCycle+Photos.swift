import Foundation
import SyncProtocol

extension SyncCycle {
    /// How many rounds of re-sending missing or suspect chunks one upload gets per cycle.
    static let finalizeRounds = 3

    /// Uploads the queued photos, oldest first: up to `photoUploadsInFlight` send chunks at
    /// once, and as many again register or finalize meanwhile, outside that bound, so the
    /// link carries chunks while those round trips are under way. After a failure that stops
    /// the cycle no further upload starts; those in flight end first (their results
    /// recorded), then the cycle stops with the first failure.
    /// - Returns: how many finished.
    func uploadPhotos() async throws(Stop) -> Int {
        let photos = try await local { try await store.queuedPhotos() }
        report { $0.bytesTotal = photos.reduce(0) { $0 + $1.totalBytes } }
        let sending = TurnGate(width: photoUploadsInFlight)
        let (finished, stop) = await withTaskGroup(of: Result<Bool, Stop>.self) { group in
            var waiting = photos.makeIterator()
            var finished = 0
            var stop: Stop?
            for _ in 0..<photoUploadsInFlight * 2 {
                guard let photo = waiting.next() else { break }
                group.addTask { await upload(photo, sending: sending) }
            }
            while let result = await group.next() {
                switch result {
                case .success(let done): finished += done ? 1 : 0
                case .failure(let failure): stop = stop ?? failure
                }
                if stop == nil, let photo = waiting.next() { group.addTask { await upload(photo, sending: sending) } }
            }
            return (finished, stop)
        }
        if let stop { throw stop }
        return finished
    }

    /// Uploads one photo and records the outcome on the device.
    /// - Returns: `.success(true)` once the server holds it verified, `.success(false)` when
    ///   it was refused for good (an issue for the user), `.failure` when the cycle must stop.
    private func upload(_ photo: PhotoRow, sending: TurnGate) async -> Result<Bool, Stop> {
        do throws(Stop) {
            let verified: Bool
            do {
                verified = try await transfer(photo, sending: sending)
            } catch let failure as APIFailure {
                guard Self.isPermanent(failure) else { throw await stopping(failure) }
                try await refuse(photo, failure.code ?? .validationFailed, failure.description)
                return .success(false)
            } catch {
                try await refuse(photo, .validationFailed, "the copy on this device cannot be read (\(error))")
                return .success(false)
            }
            guard verified else {
                try await refuse(photo, .fileChecksumMismatch, "the server could not verify it; the copy on this device may be damaged")
                return .success(false)
            }
            try await local { try await store.markPhotoUploaded(photo.attId, at: clock.now()) }
            return .success(true)
        } catch {
            return .failure(error)
        }
    }

    /// Registers (or resumes) the photo's session, sends the chunks the server lacks (on a
    /// turn of `sending`), and finalizes; missing or suspect chunks named by finalize are sent
    /// again.
    /// - Returns: whether the server holds the verified photo.
    /// - Throws: `APIFailure` from the server; file errors reading the device's copy.
    private func transfer(_ photo: PhotoRow, sending: TurnGate) async throws -> Bool {
        var session = try await api.register(photo.registration, token: token)
        var missing = Self.missing(photo, session)
        for _ in 0..<Self.finalizeRounds {
            if session.status == "complete" { return true }
            await sending.acquire()
            do {
                for index in missing { try await send(chunk: index, of: photo) }
                await sending.release()
            } catch {
                await sending.release()
                throw error
            }
            do {
                _ = try await api.finalize(attId: photo.attId, chunkSha256: photo.chunkSha256, token: token)
                return true
            } catch {
                switch error.code {
                case .chunksMissing?: missing = error.indexes("missing")
                case .fileChecksumMismatch?: missing = error.indexes("suspectChunks")
                case .uploadExpired?:
                    session = try await api.register(photo.registration, token: token)
                    missing = Self.missing(photo, session)
                default: throw error
                }
            }
        }
        return session.status == "complete"
    }

    /// Sends one chunk read from the device's copy; a chunk damaged on the way (the server's
    /// digest differs from the one sent) is sent once more.
    private func send(chunk index: Int, of photo: PhotoRow) async throws {
        let file = store.photoFile(named: photo.fileName)
        let bytes = try await offCooperativePool { try PhotoCopier.chunk(index, of: file, chunkBytes: photo.chunkBytes) }
        let digest = try SHA256Hasher.hex(bytes)
        for attempt in 1...2 {
            do {
                try await api.putChunk(attId: photo.attId, index: index, bytes: bytes, sha256: digest, token: token)
                break
            } catch {
                guard error.code == .chunkChecksumMismatch, attempt == 1 else { throw error }
            }
        }
        let sent = Int64(bytes.count)
        report { $0.bytesSent += sent }
    }

    private func refuse(_ photo: PhotoRow, _ code: ErrorCode, _ problem: String) async throws(Stop) {
        try await local { try await store.markPhotoProblem(photo.attId, code, problem, failed: true) }
    }

    /// Refusals that retrying cannot change: too large, declared differently, malformed.
    private static func isPermanent(_ failure: APIFailure) -> Bool {
        [ErrorCode.attachmentTooLarge, .attachmentMismatch, .validationFailed].contains { $0 == failure.code }
    }

    private static func missing(_ photo: PhotoRow, _ session: AttachmentSession) -> [Int] {
        let received = Set(session.receivedChunks ?? [])
        return (0..<photo.chunkSha256.count).filter { !received.contains($0) }
    }
}
