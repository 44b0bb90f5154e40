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
    /// How far above the device's high-water mark a new op's `clientSeq` may be; further ->
    /// `VALIDATION_FAILED` on the op's `clientSeq`, nothing applied. One forged number far
    /// ahead would otherwise hold every later op of the device behind a gap it never fills.
    public var clientSeqWindow: Int64
    /// Most `deferred` ops one device may have held; a push that would hold more new ones ->
    /// `TOO_MANY_DEFERRED`, nothing stored. Default 1,000.
    public var maxDeferredOpsPerDevice: Int

    /// The largest `clientSeq` accepted: 2^53, the largest integer every JSON reader keeps
    /// exactly, and far below `Int64.max`, so sequence arithmetic cannot overflow.
    public static let maxClientSeq: Int64 = 1 << 53

    public init(
        maxOpsPerPush: Int = 50, occurredAtWindow: TimeInterval = 30 * 86_400, occurredAtFutureSkew: TimeInterval = 300,
        maxMissingListed: Int = 100, clientSeqWindow: Int64 = 1_000_000, maxDeferredOpsPerDevice: Int = 1_000
    ) {
        self.maxOpsPerPush = maxOpsPerPush
        self.occurredAtWindow = occurredAtWindow
        self.occurredAtFutureSkew = occurredAtFutureSkew
        self.maxMissingListed = maxMissingListed
        self.clientSeqWindow = clientSeqWindow
        self.maxDeferredOpsPerDevice = maxDeferredOpsPerDevice
    }
}
