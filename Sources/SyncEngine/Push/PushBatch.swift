public import SyncProtocol

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
    /// The sync call to record with the batch's writes (HTTP pushes); nil records none.
    public var visit: SyncVisit?

    public init(
        principal: Principal, schemaVersion: Int, ops: [PushOp], blockedEntities: [String: String] = [:], visit: SyncVisit? = nil
    ) {
        self.principal = principal
        self.schemaVersion = schemaVersion
        self.ops = ops
        self.blockedEntities = blockedEntities
        self.visit = visit
    }
}

/// The outcome of one processor run.
public struct PushOutcome: Sendable, Hashable {
    /// One result per op of the batch, in request order.
    public var results: [OpResult]
    /// The current results of the device's held ops from earlier pushes that this run
    /// re-attempted or re-checked (for logging and notifications).
    public var settled: [OpResult]
    /// The run's own highest sequence number, or the latest issued one when it reserved none
    /// but recorded a ``PushBatch/visit``; nil otherwise.
    public var newServerSeq: Int64?

    public init(results: [OpResult], settled: [OpResult] = [], newServerSeq: Int64? = nil) {
        self.results = results
        self.settled = settled
        self.newServerSeq = newServerSeq
    }
}
