import Foundation

/// When to try again after failed sync attempts: exponential, with jitter, between a floor
/// and a ceiling (5 s, 15 s, 45 s, 2¼ min, then 5 min by default).
///
/// Jitter takes up to `jitter` of each delay away at random, so devices that lost the
/// network together do not come back together. A `Retry-After` from the server is honoured
/// as a minimum instead.
///
/// ```swift
/// Backoff().delay(afterFailures: 1, random: 0.5)   // 4.5 seconds
/// Backoff().delay(afterFailures: 9, random: 0)     // 300 seconds
/// ```
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    public var multiplier: Double
    /// The fraction of a delay jitter may remove (0 to 1).
    public var jitter: Double

    public init(initial: Duration = .seconds(5), maximum: Duration = .seconds(300), multiplier: Double = 3, jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait after `failures` consecutive failed attempts (1 for the first).
    /// - Parameter random: a number in `0..<1` choosing the jitter.
    public func delay(afterFailures failures: Int, random: Double) -> Duration {
        let exponent = Double(min(max(failures, 1) - 1, 64))
        let base = min(seconds(initial) * pow(multiplier, exponent), seconds(maximum))
        return .seconds(base * (1 - jitter * min(max(random, 0), 1)))
    }

    /// The wait the server asked for, with up to `jitter` added so that a crowd told to come
    /// back together does not.
    public func delay(retryAfter: Duration, random: Double) -> Duration {
        .seconds(seconds(retryAfter) * (1 + jitter * min(max(random, 0), 1)))
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
