public import Foundation
public import SyncProtocol

/// One row of the op log: the stored outcome of an op, keyed by `(deviceId, opId)`.
///
/// Written in the same transaction as the op's effects (rule 1) and kept at least 30 days.
/// A `deferred` row also carries ``pending`` (the op body to re-attempt); when the op later
/// settles, the row is rewritten with its final result and no body. `(deviceId, clientSeq)`
/// is unique among rows too.
public struct OpLogEntry: Hashable, Codable, Sendable {
    public var deviceId: String
    public var opId: String
    public var clientSeq: Int64
    public var entityKey: String
    public var collection: String
    public var recordId: String
    /// The pushing user's id.
    public var authorId: String
    /// See ``PushProcessor`` for what it covers.
    public var fingerprint: String
    /// The result answered to the device (never with `replayed`).
    public var result: OpResult
    /// The op to re-attempt while the result is `deferred`.
    public var pending: PendingOp?
    /// The op as the device sent it, written for the sync centre's journal; stores need not
    /// load it back (replays only need the result and fingerprint).
    public var op: PushOp?

    public init(
        deviceId: String, opId: String, clientSeq: Int64, entityKey: String, collection: String, recordId: String,
        authorId: String, fingerprint: String, result: OpResult, pending: PendingOp?, op: PushOp?
    ) {
        self.deviceId = deviceId
        self.opId = opId
        self.clientSeq = clientSeq
        self.entityKey = entityKey
        self.collection = collection
        self.recordId = recordId
        self.authorId = authorId
        self.fingerprint = fingerprint
        self.result = result
        self.pending = pending
        self.op = op
    }

    public var status: OpStatus { result.status }
    public var code: ErrorCode? { result.code }

    /// The attachment ids a deferred op waits for, directly or through an earlier op of its
    /// entity. Storage can index them to find the devices to release when an upload finalizes.
    public var awaitedAttachments: [String] { pending?.missingAttachments ?? [] }
}

/// An op the server holds (`deferred`): what is needed to re-attempt it later, possibly from a
/// worker after an attachment finalizes, long after its push.
public struct PendingOp: Hashable, Codable, Sendable {
    public var op: PushOp
    /// The schema version of the push that carried it.
    public var schemaVersion: Int
    /// The principal that pushed it, used for the scope and role checks when it is re-attempted.
    public var author: Principal
    /// When the server first received it; the `occurredAt` window is measured from here.
    public var receivedAt: Date
    public var fingerprint: String
    /// Its current `deferred` result.
    public var result: OpResult

    public init(op: PushOp, schemaVersion: Int, author: Principal, receivedAt: Date, fingerprint: String, result: OpResult) {
        self.op = op
        self.schemaVersion = schemaVersion
        self.author = author
        self.receivedAt = receivedAt
        self.fingerprint = fingerprint
        self.result = result
    }

    /// The attachment ids this op waits for (its own `dependsOn`, or those of the earlier op of its entity it waits behind).
    public var missingAttachments: [String] { result.missing?.attachmentIds ?? [] }
}

/// A device's ordering state (rule 2), loaded and locked at the start of a push.
public struct DeviceState: Hashable, Codable, Sendable {
    public var deviceId: String
    /// Every `clientSeq` up to this one has been received (0: none yet).
    public var highWater: Int64
    /// The device's `deferred` ops (op log rows with a ``OpLogEntry/pending`` body).
    public var pending: [PendingOp]

    public init(deviceId: String, highWater: Int64 = 0, pending: [PendingOp] = []) {
        self.deviceId = deviceId
        self.highWater = highWater
        self.pending = pending
    }
}
