import Foundation
import SyncProtocol

/// One sync of one device: drop expired local copies, push the outbox while queued photos
/// upload, push again when deferred ops were waiting for them, then pull until the server
/// has nothing more. Each step commits as it goes, so a cycle cut anywhere (network, crash)
/// resumes where it stopped.
struct SyncCycle: Sendable {
    /// How a cycle ended.
    enum Outcome: Equatable, Sendable {
        case completed
        /// Something transient failed (network, 5xx, 429, 503); `after` is the server's
        /// `Retry-After` when it gave one.
        case retryLater(after: Duration?, reason: String)
        /// Nothing can sync until someone acts: sign-in, update, suspension (see the status).
        case blocked
    }

    /// Why a step stopped the cycle.
    enum Stop: Error {
        case transient(APIFailure)
        case blocked
    }

    let store: LocalStore
    let api: ServerAPI
    let status: StatusCenter
    let clock: ServerClock
    let token: String
    let appVersion: String
    /// Photos sending chunks at the same time (1 to 16).
    let photoUploadsInFlight: Int

    /// How long limits from `GET /v1/config` are trusted before they are fetched again.
    static let limitsLifetime: TimeInterval = 3_600

    func run() async throws -> Outcome {
        var device = try await store.device()
        try await dropExpiredCopies(device)
        status.update { $0.activity = .syncing(SyncProgress()) }
        do {
            if device.limitsFetchedAt.map({ clock.now().timeIntervalSince($0) > Self.limitsLifetime }) ?? true {
                device.limits = try await refreshLimits()
            }
            let (pushed, uploaded) = try await pushWhileUploading(limits: device.limits)
            if uploaded > 0, pushed.deferred > 0 {
                _ = try await pushOutbox(limits: device.limits)
            }
            try await pull(from: device.cursor, limit: device.limits.maxPullLimit)
            return .completed
        } catch .blocked {
            return .blocked
        } catch .transient(let failure) {
            return .retryLater(after: failure.retryAfter, reason: failure.description)
        }
    }

    /// Pushes the outbox and uploads the queued photos side by side, so neither waits on the
    /// other's round trips. An op naming a photo still on its way is held by the server
    /// (deferred) and released when the photo arrives; the push after learns its result.
    /// When either stops, the other still runs to its end (its answers recorded) before the
    /// first failure is thrown.
    /// - Returns: the push's tally and how many photos finished.
    private func pushWhileUploading(limits: ServerLimits) async throws(Stop) -> (PushTally, Int) {
        async let pushing = outcome { () async throws(Stop) in try await pushOutbox(limits: limits) }
        let uploaded = await outcome { () async throws(Stop) in try await uploadPhotos() }
        let pushed = await pushing
        return (try pushed.get(), try uploaded.get())
    }

    private func outcome<T>(_ body: () async throws(Stop) -> T) async -> Result<T, Stop> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// Runs a server call, turning its failure into the cycle's `Stop`.
    func call<T>(_ body: () async throws(APIFailure) -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch {
            throw await stopping(error)
        }
    }

    /// Turns an answer that ends the cycle into its outcome, noting sessions and upgrades.
    /// (Should noting fail, the next call meets the same answer and notes it again.)
    func stopping(_ failure: APIFailure) async -> Stop {
        switch (failure.status, failure.code) {
        case (401?, _):
            try? await store.setSession(.expired)
            return .blocked
        case (403?, .accountSuspended?):
            try? await store.setSession(.suspended)
            return .blocked
        case (426?, _):
            try? await store.setUpgradeRequired(minimum: failure.details["minimumVersion"]?.stringValue, appVersion: appVersion)
            return .blocked
        default:
            return .transient(failure)
        }
    }

    /// Fetches and stores the server's limits (`GET /v1/config`).
    func refreshLimits() async throws(Stop) -> ServerLimits {
        let config = try await call { () async throws(APIFailure) in try await api.config(token: token) }
        let limits = ServerLimits(config)
        try await local { try await store.setLimits(limits, minSupported: config.minSupportedAppVersion, at: clock.now()) }
        return limits
    }

    /// Local retention: synced copies older than the server's `localRetentionDays`, measured
    /// on the server's clock as estimated at the last answer.
    private func dropExpiredCopies(_ device: DeviceRow) async throws {
        let cutoff = clock.now().addingTimeInterval(-Double(device.limits.localRetentionDays) * 86_400)
        try await store.dropSynced(before: cutoff)
    }

    /// Changes the progress of the running sync.
    func report(_ change: (inout SyncProgress) -> Void) {
        status.update { inputs in
            guard case .syncing(var progress) = inputs.activity else { return }
            change(&progress)
            inputs.activity = .syncing(progress)
        }
    }

    /// Runs a local store call inside a step; its failure ends the cycle as a transient one
    /// (the device's disk, not the server), to be retried with backoff.
    func local<T>(_ body: () async throws -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch {
            throw .transient(.unreadable("local database: \(error)"))
        }
    }
}
