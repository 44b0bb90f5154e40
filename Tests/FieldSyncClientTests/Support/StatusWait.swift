import AppTesting
import FieldSyncClient
import Foundation

extension SyncClient {
    /// Waits until the status satisfies `condition`, polling; throws after `timeout`.
    @discardableResult
    func waitForStatus(timeout: Duration = .seconds(20), _ condition: (SyncStatus) -> Bool) async throws -> SyncStatus {
        let reached = try await eventually(within: timeout) { () -> SyncStatus? in
            let current = status
            return condition(current) ? current : nil
        }
        if let reached { return reached }
        throw Failure("status never got there; last: \(status.state) \(status)")
    }
}

extension SyncStatus {
    var isSynced: Bool { if case .synced(at: _?) = state { pending == 0 } else { false } }
    var retriesExhausted: Bool { if case .needsAttention(.retriesExhausted) = state { true } else { false } }
}
