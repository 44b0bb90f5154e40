public import Foundation

/// The key a client sent with a request, and the endpoint it belongs to.
public struct IdempotencyKey: Sendable, Hashable {
    /// The operation the key is scoped to, as the ledger stores it (e.g. `POST /v1/orders`).
    public var endpoint: String
    public var value: String

    public init(endpoint: String, value: String) {
        self.endpoint = endpoint
        self.value = value
    }
}

/// A request's identity for idempotency: who sent it, to which endpoint, under which key.
public struct IdempotencyScope: Sendable, Hashable {
    public var userId: String
    public var endpoint: String
    public var key: String

    public init(userId: String, key: IdempotencyKey) {
        self.userId = userId
        endpoint = key.endpoint
        self.key = key.value
    }
}

/// The response first sent for a key, replayed byte for byte; what it says is the caller's
/// business (the device API stores its status and JSON body).
public struct RecordedResponse: Sendable, Hashable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// The answer stored for a completed request: its fingerprint and its response.
public struct StoredAnswer: Sendable, Hashable {
    /// Identifies the request's content, to tell a replay from a reuse of the key.
    public var fingerprint: String
    public var response: RecordedResponse

    public init(fingerprint: String, response: RecordedResponse) {
        self.fingerprint = fingerprint
        self.response = response
    }
}

/// Idempotency keys inside the caller's transaction: a key is claimed for the transaction
/// (a concurrent request with it learns at once that it is busy, and the claim ends with the
/// transaction however it ends), and its answer is stored in the same commit as its effects.
public protocol IdempotencyLedger {
    /// Claims `scope` for this transaction (false when another transaction holds it) and reads
    /// the answer of an earlier request with this key, if one completed.
    func claim(_ scope: IdempotencyScope) throws -> (claimed: Bool, answer: StoredAnswer?)

    /// Stores the answer of the request that holds the claim; it commits with its effects.
    func store(_ answer: StoredAnswer, for scope: IdempotencyScope) throws
}

/// A sync store whose transactions also keep the idempotency ledger.
public protocol IdempotentSyncStore: Sendable {
    /// Runs `body` in one sync transaction that also holds the ledger, retried like any other.
    func transaction<T>(_ body: (any IdempotencyLedger, any SyncTransaction) throws -> T) throws -> T
}
