public import Foundation
import Synchronization

/// Counts failures per key (a user name, a client address) and answers each failure past a
/// few free ones with a delay that doubles up to a cap, instead of a lock: whoever guesses
/// slows down exponentially, while a rightful user waits at most `maxDelay` even when
/// someone else keeps failing on their name.
///
/// The table is bounded: past `maxKeys` the least recently touched keys are dropped (a tenth
/// at a time, so a flood of new keys costs amortised O(log n) each).
///
/// ```swift
/// let throttle = FailureThrottle(rule: .init(freeFailures: 5, baseDelay: 30, maxDelay: 900))
/// if let wait = throttle.retryAfter(address) { throw Refusal.throttled(wait) }
/// throttle.recordFailure(address)
/// ```
public final class FailureThrottle: Sendable {
    public struct Rule: Sendable {
        /// Failures a key may collect before any delay.
        public var freeFailures: Int
        /// Seconds of delay after the first failure past the free ones; doubles with each further failure.
        public var baseDelay: Double
        /// The longest delay.
        public var maxDelay: Double
        /// A key without a failure for this long starts over. Default 15 minutes.
        public var forgetAfter: Double

        public init(freeFailures: Int, baseDelay: Double, maxDelay: Double, forgetAfter: Double = 900) {
            self.freeFailures = freeFailures
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.forgetAfter = forgetAfter
        }

        /// The delay after a key's `failures`-th failure.
        func delay(after failures: Int) -> Double {
            guard failures >= freeFailures else { return 0 }
            // Capping the exponent first keeps the arithmetic finite for any count.
            let doublings = min(failures - freeFailures, 62)
            return min(maxDelay, baseDelay * Double(1 << doublings))
        }
    }

    private struct Entry {
        var failures: Int
        var lastFailure: Double
        var lastTouched: Double
    }

    private let rule: Rule
    private let maxKeys: Int
    private let now: @Sendable () -> Double
    private let table = Mutex<[String: Entry]>([:])

    /// - Parameters:
    ///   - rule: free failures, the first delay, its cap, and when a key is forgotten.
    ///   - maxKeys: memory bound; past it the least recently touched keys are dropped.
    ///   - now: monotonic seconds (injectable for tests).
    public init(rule: Rule, maxKeys: Int = 100_000, now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.rule = rule
        self.maxKeys = max(1, maxKeys)
        self.now = now
    }

    /// Seconds until `key` may try again, or nil when it is not delayed.
    public func retryAfter(_ key: String) -> Int? {
        let time = now()
        return table.withLock { table -> Int? in
            guard var entry = table[key] else { return nil }
            entry.lastTouched = time
            table[key] = entry
            let remaining = entry.lastFailure + rule.delay(after: entry.failures) - time
            guard remaining > 0 else { return nil }
            return max(1, Int(remaining.rounded(.up)))
        }
    }

    /// Records one failure for `key`.
    public func recordFailure(_ key: String) {
        let time = now()
        table.withLock { table in
            var entry = table[key] ?? Entry(failures: 0, lastFailure: time, lastTouched: time)
            if time - entry.lastFailure > rule.forgetAfter { entry.failures = 0 }
            entry.failures = min(entry.failures + 1, Int(Int32.max))
            entry.lastFailure = time
            entry.lastTouched = time
            table[key] = entry
            if table.count > maxKeys { Self.evictLeastRecent(&table, keeping: maxKeys - maxKeys / 10) }
        }
    }

    /// Forgets the failures of `key` (after a successful login).
    public func reset(_ key: String) {
        _ = table.withLock { $0.removeValue(forKey: key) }
    }

    /// The number of keys held.
    public var count: Int { table.withLock { $0.count } }

    private static func evictLeastRecent(_ table: inout [String: Entry], keeping kept: Int) {
        let evicted = table.sorted { $0.value.lastTouched < $1.value.lastTouched }.prefix(table.count - max(1, kept))
        for (key, _) in evicted { table.removeValue(forKey: key) }
    }
}
