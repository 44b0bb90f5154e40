public import Foundation
import SyncProtocol
import Synchronization

/// A clock tests can move.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: String = "2026-11-03T09:00:00Z") { current = Mutex(RFC3339.date(from: start)!) }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// An RFC 3339 time `offset` seconds from now.
    public func stamp(_ offset: TimeInterval = 0) -> String { RFC3339.string(from: now.addingTimeInterval(offset)) }
}

/// Predictable ids: `c-1`, `c-2`, …
public final class Counter: Sendable {
    private let value = Mutex(0)

    public init() {}

    public func next() -> String {
        value.withLock {
            $0 += 1
            return "c-\($0)"
        }
    }
}
