public import Foundation

/// Tunables of the sync engine, with PROTOCOL.md's defaults.
public struct SyncConfiguration: Sendable, Hashable {
    /// Most ops in one push; more -> `VALIDATION_FAILED` on `ops`.
    public var maxOpsPerPush: Int
    /// How far in the past `occurredAt` may be (30 days).
    public var occurredAtWindow: TimeInterval
    /// How far ahead of the server clock `occurredAt` may be (5 minutes).
    public var occurredAtFutureSkew: TimeInterval
    /// At most this many absent seqs are listed in an `AWAITING_PREDECESSOR` result's `missing`.
    public var maxMissingListed: Int

    public init(
        maxOpsPerPush: Int = 50, occurredAtWindow: TimeInterval = 30 * 86_400, occurredAtFutureSkew: TimeInterval = 300,
        maxMissingListed: Int = 100
    ) {
        self.maxOpsPerPush = maxOpsPerPush
        self.occurredAtWindow = occurredAtWindow
        self.occurredAtFutureSkew = occurredAtFutureSkew
        self.maxMissingListed = maxMissingListed
    }
}
