public import Foundation
import Synchronization

/// Counts failures per key (a user name, a client address) in a sliding window and
/// refuses further attempts once a key reaches its limit, until old failures age out.
///
/// Shared by the device token endpoint and the back-office login, so guessing a
/// password through one door does not reset the count of the other.
public final class FailureThrottle: Sendable {
    public struct Rule: Sendable {
        public var maxFailures: Int
        public var window: Double
        public init(maxFailures: Int, window: Double) {
            self.maxFailures = maxFailures
            self.window = window
        }
    }

    private let rule: Rule
    private let maxKeys: Int
    private let now: @Sendable () -> Double
    private let failures = Mutex<[String: [Double]]>([:])

    /// - Parameters:
    ///   - rule: how many failures a key may collect within how many seconds.
    ///   - maxKeys: memory bound; when exceeded, keys whose failures have all aged out are dropped first.
    ///   - now: monotonic seconds (injectable for tests).
    public init(rule: Rule, maxKeys: Int = 100_000, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.rule = rule
        self.maxKeys = maxKeys
        self.now = now
    }

    /// Seconds until `key` may try again, or nil when it is not throttled.
    public func retryAfter(_ key: String) -> Int? {
        let time = now()
        return failures.withLock { table -> Int? in
            let recent = (table[key] ?? []).filter { $0 > time - rule.window }
            guard recent.count >= rule.maxFailures, let oldest = recent.first else { return nil }
            return max(1, Int((oldest + rule.window - time).rounded(.up)))
        }
    }

    /// Records one failure for `key`.
    public func recordFailure(_ key: String) {
        let time = now()
        failures.withLock { table in
            var recent = (table[key] ?? []).filter { $0 > time - rule.window }
            recent.append(time)
            table[key] = Array(recent.suffix(rule.maxFailures))
            if table.count > maxKeys {
                table = table.filter { $0.value.contains { $0 > time - rule.window } }
            }
        }
    }

    /// Forgets the failures of `key` (after a successful login).
    public func reset(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }
}
