import Foundation
import Synchronization

extension SyncClient {
    /// Runs one sync now, even if the app said the network is down or retries were exhausted,
    /// and returns the status it left. Failures show in the status (waiting, needs attention);
    /// this throws only when the local database fails.
    @discardableResult
    public func sync() async throws -> SyncStatus {
        failures.withLock { $0 = 0 }
        let outcome = try await runCycle(manual: true)
        _ = scheduleAfter(outcome)
        return status
    }

    /// The automatic sync loop: syncs at once, after every local change, when the network
    /// returns, on `syncNow()`, and every `pollInterval`; after failures it waits with
    /// backoff (or the server's `Retry-After`) up to the retry ceiling. Returns when the
    /// calling task is cancelled. Run one loop per client.
    public func run() async {
        signals.clear()
        var asked = false
        while !Task.isCancelled {
            var accepting: Set<Wake> = [.manual, .networkRegained]
            var wait: Duration?
            if statusCenter.inputs.networkAvailable {
                let outcome = (try? await runCycle(manual: asked)) ?? .retryLater(after: nil, reason: "the local database failed")
                wait = scheduleAfter(outcome)
                if outcome == .completed { accepting.insert(.localChange) }
            } else {
                statusCenter.update { $0.activity = .idle }
            }
            guard let wake = await waitForWake(wait, accepting: accepting) else { return }
            asked = wake == .manual
            if wake == .manual || wake == .networkRegained { failures.withLock { $0 = 0 } }
        }
    }

    /// Tells the client whether the device has a network (from the platform's reachability
    /// API). While it has none the loop makes no attempts and the status says so; when it
    /// returns, the loop syncs at once.
    public func networkChanged(isAvailable: Bool) {
        let wasAvailable = statusCenter.inputs.networkAvailable
        statusCenter.update { $0.networkAvailable = isAvailable }
        if isAvailable && !wasAvailable { signals.signal(.networkRegained) }
    }

    /// Asks the running loop for a sync now (a "retry" button): it also restarts retries
    /// that stopped at the ceiling.
    public func syncNow() {
        signals.signal(.manual)
    }

    // MARK: - Cycles

    /// One cycle under the gate; skipped (blocked) without a session, or while a 426 stands
    /// unless the user asked.
    func runCycle(manual: Bool) async throws -> SyncCycle.Outcome {
        await cycles.acquire()
        do {
            let outcome = try await cycle(manual: manual)
            await cycles.release()
            return outcome
        } catch {
            statusCenter.update { $0.activity = .idle }
            await cycles.release()
            throw error
        }
    }

    private func cycle(manual: Bool) async throws -> SyncCycle.Outcome {
        let device = try await store.device()
        guard device.session == .active, let token = device.token else { return .blocked }
        if device.upgradeRequired(for: configuration.appVersion) {
            guard manual else { return .blocked }
            try await store.setUpgradeRequired(minimum: nil, appVersion: nil)
        }
        let outcome = try await SyncCycle(
            store: store, api: api, status: statusCenter, clock: clock, token: token, appVersion: configuration.appVersion,
            photoUploadsInFlight: min(max(configuration.photoUploadsInFlight, 1), 16)
        ).run()
        let finished = try await store.facts()
        let everythingSent = outcome == .completed && finished.pendingChanges + finished.pendingPhotos == 0
        try await store.cycleFinished(
            minSupported: statusCenter.inputs.minSupportedAppVersion, clockOffset: clock.currentOffset,
            syncedAt: everythingSent ? clock.now() : nil)
        try await refreshStatus()
        return outcome
    }

    /// Counts the outcome and sets the activity; returns how long the loop waits before the
    /// next automatic attempt (nil: until a signal).
    func scheduleAfter(_ outcome: SyncCycle.Outcome) -> Duration? {
        switch outcome {
        case .completed:
            failures.withLock { $0 = 0 }
            statusCenter.update { $0.activity = .idle }
            return configuration.pollInterval
        case .blocked:
            statusCenter.update { $0.activity = .idle }
            return nil
        case .retryLater(let after, let reason):
            let count = failures.withLock { count in
                count += 1
                return count
            }
            guard count < configuration.maxConsecutiveFailures else {
                statusCenter.update { $0.activity = .exhausted(attempts: count, lastError: reason) }
                return nil
            }
            let delay =
                after.map { configuration.backoff.delay(retryAfter: $0, random: configuration.random()) }
                ?? configuration.backoff.delay(afterFailures: count, random: configuration.random())
            statusCenter.update { $0.activity = .waiting(until: configuration.now().addingTimeInterval(Self.seconds(delay))) }
            return delay
        }
    }

    /// Waits for `duration` (through the configured sleep) or an accepted signal, whichever
    /// comes first; nil when the task is cancelled.
    private func waitForWake(_ duration: Duration?, accepting: Set<Wake>) async -> Wake? {
        await withTaskGroup(of: Wake?.self) { group in
            group.addTask { await self.signals.next(accepting: accepting) }
            if let duration {
                group.addTask {
                    // A sleep cut short (the signal won, or the loop was cancelled) also ends
                    // here; the cancellation check below tells the two apart.
                    try? await self.configuration.sleep(duration)
                    return .timer
                }
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return Task.isCancelled ? nil : first
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
