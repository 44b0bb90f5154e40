import Foundation
import Synchronization

/// Holds what the sync indicator is computed from and tells every subscriber when the
/// computed ``SyncStatus`` changes.
final class StatusCenter: Sendable {
    /// What the sync machinery is doing right now.
    enum Activity: Equatable, Sendable {
        case idle
        case syncing(SyncProgress)
        case waiting(until: Date)
        case exhausted(attempts: Int, lastError: String)
    }

    /// Everything the status depends on.
    struct Inputs: Equatable, Sendable {
        var activity = Activity.idle
        var networkAvailable = true
        var facts = StoreFacts()
        var session = Session.signedOut
        var upgradeRequired = false
        var upgradeMinimum: String?
        var canCreate = true
        var minSupportedAppVersion: String?
        var lastSyncedAt: Date?
    }

    private struct State {
        var inputs = Inputs()
        var status = StatusCenter.status(for: Inputs())
        var subscribers: [Int: AsyncStream<SyncStatus>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let state = Mutex(State())

    var current: SyncStatus { state.withLock { $0.status } }

    var inputs: Inputs { state.withLock { $0.inputs } }

    /// Changes the inputs; subscribers hear of the new status when it differs.
    func update(_ change: (inout Inputs) -> Void) {
        state.withLock { state in
            change(&state.inputs)
            let status = Self.status(for: state.inputs)
            guard status != state.status else { return }
            state.status = status
            for subscriber in state.subscribers.values { subscriber.yield(status) }
        }
    }

    /// The current status, then every change, until the consumer stops listening.
    func updates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            continuation.yield(state.status)
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func finishAll() {
        state.withLock { state in
            for subscriber in state.subscribers.values { subscriber.finish() }
            state.subscribers.removeAll()
        }
    }

    /// The headline, in order of precedence: what blocks syncing, a running sync, no network,
    /// stopped retries, a scheduled retry, issues, pending work, then synced.
    static func status(for inputs: Inputs) -> SyncStatus {
        let facts = inputs.facts
        let state: SyncStatus.State =
            if inputs.session == .suspended {
                .needsAttention(.accountSuspended)
            } else if inputs.session != .active {
                .needsAttention(.signInRequired)
            } else if inputs.upgradeRequired {
                .needsAttention(.updateRequired(minimumVersion: inputs.upgradeMinimum))
            } else {
                activityState(inputs)
            }
        return SyncStatus(
            state: state, pendingChanges: facts.pendingChanges, pendingPhotos: facts.pendingPhotos, issueCount: facts.issues,
            lastSyncedAt: inputs.lastSyncedAt, canCreateRecords: inputs.canCreate, minSupportedAppVersion: inputs.minSupportedAppVersion)
    }

    private static func activityState(_ inputs: Inputs) -> SyncStatus.State {
        let facts = inputs.facts
        switch inputs.activity {
        case .syncing(let progress): return .syncing(progress)
        case _ where !inputs.networkAvailable: return .offline
        case .exhausted(let attempts, let lastError): return .needsAttention(.retriesExhausted(attempts: attempts, lastError: lastError))
        case .waiting(let until): return .waitingForNetwork(retryAt: until)
        case .idle where facts.issues > 0: return .needsAttention(.issues(facts.issues))
        case .idle where facts.pendingChanges + facts.pendingPhotos > 0: return .pending
        case .idle: return .synced(at: inputs.lastSyncedAt)
        }
    }
}
