import Synchronization

/// One direction of a relayed link, shared by every connection through it: bytes leave it
/// one after another at its rate, whichever connection they belong to, as they leave a
/// phone's radio. Two uploads at once each get part of the rate, never the rate each.
final class LinkClock: Sendable {
    /// nil: unlimited.
    let bitsPerSecond: Double?
    private let freeAt: Mutex<ContinuousClock.Instant>

    init(bitsPerSecond: Double?, now: ContinuousClock.Instant = .now) {
        self.bitsPerSecond = bitsPerSecond
        freeAt = Mutex(now)
    }

    /// Books `count` bytes on the link, after those already booked.
    /// - Returns: when their last bit has left the link.
    func book(_ count: Int, now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        guard let bitsPerSecond else { return now }
        return freeAt.withLock { freeAt in
            freeAt = max(now, freeAt) + .seconds(Double(count * 8) / bitsPerSecond)
            return freeAt
        }
    }
}
