import SyncProtocol

/// The input of one push: who pushes, in which schema version, which ops.
public struct PushBatch: Sendable, Hashable {
    /// The pushing user and device; `principal.deviceId` scopes op ids and `clientSeq`s.
    public var principal: Principal
    /// The request's `schemaVersion`.
    public var schemaVersion: Int
    /// The ops in request order.
    public var ops: [PushOp]
    /// Entities whose ops already failed earlier in the same push (entity key -> failed op id),
    /// so that rule 3 holds when the push is re-run one op at a time (rule 9 fallback).
    public var blockedEntities: [String: String]

    public init(principal: Principal, schemaVersion: Int, ops: [PushOp], blockedEntities: [String: String] = [:]) {
        self.principal = principal
        self.schemaVersion = schemaVersion
        self.ops = ops
        self.blockedEntities = blockedEntities
    }
}

/// The outcome of one processor run.
public struct PushOutcome: Sendable, Hashable {
    /// One result per op of the batch, in request order.
    public var results: [OpResult]
    /// The current results of the device's held ops from earlier pushes that this run
    /// re-attempted or re-checked (for logging and notifications).
    public var settled: [OpResult]
    /// The highest sequence number this run committed, if it changed anything.
    public var highestServerSeq: Int64?

    public init(results: [OpResult], settled: [OpResult] = [], highestServerSeq: Int64? = nil) {
        self.results = results
        self.settled = settled
        self.highestServerSeq = highestServerSeq
    }
}
