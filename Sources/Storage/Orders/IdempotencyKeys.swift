import Foundation
import Postgres

/// A request's identity for idempotency: who sent it, to which endpoint, under which key.
struct IdempotencyScope: Sendable {
    var userId: String
    var endpoint: String
    var key: String

    /// The text whose 64-bit hash keys the scope's advisory lock. The user id's length makes
    /// it unambiguous; two scopes whose texts hash alike (about 2^-64) only answer
    /// `REQUEST_IN_PROGRESS` to a request that could have run.
    var lockName: String { "idempotency:\(userId.utf8.count):\(userId):\(endpoint):\(key)" }
}

/// The answer stored for a completed request.
struct StoredAnswer: Sendable {
    var fingerprint: String
    var status: Int
    var body: Data
}

/// `idempotency_keys` rows and the in-flight marker, always inside the caller's transaction.
///
/// **In flight = a transaction-scoped advisory lock, not a row.** The alternative — an
/// `in_progress` row committed in its own short transaction, with a lease time — needs a
/// second transaction per request, a lease long enough for the slowest request yet short
/// enough that a crashed request does not block its retries, and a cleanup rule for stale
/// leases. `pg_try_advisory_xact_lock` needs none of that: the lock lives exactly as long
/// as the transaction that creates the order and stores the answer, PostgreSQL releases it
/// on commit, rollback, a lost connection or a crashed server, and a concurrent request
/// with the same key learns at once (without waiting) that the key is busy. Locks are
/// visible across every FieldSync instance on the database.
enum IdempotencyKeys {
    /// Claims `scope` for this transaction (false when another transaction holds it) and reads
    /// the answer of an earlier request with this key, if one completed; one round trip.
    ///
    /// The answer is read after the claim: a request that held the claim before has committed
    /// or rolled back by then, and a READ COMMITTED statement sees its row when it committed.
    /// Without the claim the answer means nothing.
    static func claim(_ scope: IdempotencyScope, on connection: PostgresConnection) throws -> (claimed: Bool, answer: StoredAnswer?) {
        let results = try connection.pipeline([
            "SELECT pg_try_advisory_xact_lock(hashtextextended(\(scope.lockName), 0))",
            """
            SELECT fingerprint, status, body FROM idempotency_keys
            WHERE user_id = \(scope.userId) AND endpoint = \(scope.endpoint) AND key = \(scope.key)
            """,
        ])
        let answer = try results[1].first.map { row in
            StoredAnswer(fingerprint: try row.decode(0), status: try row.decode(1), body: try row.decode(2))
        }
        return (try results[0][0].decode(0, as: Bool.self), answer)
    }

    /// Stores the answer of the request that holds the claim (commits with its effects). Queued:
    /// nothing reads its result, so it goes out with the commit instead of in a trip of its own.
    static func store(_ answer: StoredAnswer, for scope: IdempotencyScope, on connection: PostgresConnection) throws {
        try connection.enqueue(["""
            INSERT INTO idempotency_keys (user_id, endpoint, key, fingerprint, status, body)
            VALUES (\(scope.userId), \(scope.endpoint), \(scope.key), \(answer.fingerprint), \(answer.status), \(answer.body))
            """])
    }
}
