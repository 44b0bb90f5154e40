import Foundation
import Postgres
import SyncEngine

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
struct PostgresIdempotencyLedger: IdempotencyLedger {
    let connection: PostgresConnection

    /// Claims and reads in one round trip.
    ///
    /// The answer is read after the claim: a request that held the claim before has committed
    /// or rolled back by then, and a READ COMMITTED statement sees its row when it committed.
    /// Without the claim the answer means nothing.
    func claim(_ scope: IdempotencyScope) throws -> (claimed: Bool, answer: StoredAnswer?) {
        let results = try connection.pipeline([
            "SELECT pg_try_advisory_xact_lock(hashtextextended(\(Self.lockName(scope)), 0))",
            """
            SELECT fingerprint, status, body FROM idempotency_keys
            WHERE user_id = \(scope.userId) AND endpoint = \(scope.endpoint) AND key = \(scope.key)
            """,
        ])
        let answer = try results[1].first.map { row in
            StoredAnswer(fingerprint: try row.decode(0), response: RecordedResponse(status: try row.decode(1), body: try row.decode(2)))
        }
        return (try results[0][0].decode(0, as: Bool.self), answer)
    }

    /// Queued: nothing reads its result, so it goes out with the commit instead of in a trip of its own.
    func store(_ answer: StoredAnswer, for scope: IdempotencyScope) throws {
        try connection.enqueue([
            """
            INSERT INTO idempotency_keys (user_id, endpoint, key, fingerprint, status, body)
            VALUES (\(scope.userId), \(scope.endpoint), \(scope.key), \(answer.fingerprint), \(answer.response.status), \(answer.response.body))
            """
        ])
    }

    /// The text whose 64-bit hash keys the scope's advisory lock. The user id's length makes
    /// it unambiguous; two scopes whose texts hash alike (about 2^-64) only answer
    /// `REQUEST_IN_PROGRESS` to a request that could have run.
    static func lockName(_ scope: IdempotencyScope) -> String {
        "idempotency:\(scope.userId.utf8.count):\(scope.userId):\(scope.endpoint):\(scope.key)"
    }
}
