import Foundation
import Synchronization

/// A token bucket per key: `burst` requests at once, refilled at `perSecond`.
///
/// The rate is given with each call, so a changed setting applies at once.
public final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private let now: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// The clock buckets refill by unless another is given: seconds since the system started.
    public static let uptime: @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }

    public init(now: @escaping @Sendable () -> Double = RateLimiter.uptime) {
        self.now = now
    }

    /// Takes one token for `key`; returns nil when allowed, else the seconds to wait.
    public func acquire(_ key: String, perSecond: Double, burst: Int) -> Int? {
        let perSecond = max(perSecond, 0.001)
        let burst = Double(max(burst, 1))
        let time = now()
        return buckets.withLock { table -> Int? in
            var bucket = table[key] ?? Bucket(tokens: burst, updated: time)
            bucket.tokens = min(burst, bucket.tokens + (time - bucket.updated) * perSecond)
            bucket.updated = time
            defer {
                table[key] = bucket
                if table.count > 100_000 { table = table.filter { $0.value.tokens < burst } }
            }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
