import Foundation
import HTTP
import Postgres
import Synchronization
import SyncProtocol

/// `GET /v1/health`: 200 when the database answers, 503 when it does not.
///
/// Monitors and load balancers poll this endpoint, so the database probe is cached for
/// `probeInterval` (1 s by default): the answer is at most that stale, and polling costs
/// at most one query per interval however many requests arrive. Both possible bodies
/// are encoded once.
public struct HealthController: Sendable {
    private let probe: DatabaseProbe
    private let upBody: Data
    private let downBody: Data

    public init(database: PostgresClient, version: String, probeInterval: Duration = .seconds(1)) {
        probe = DatabaseProbe(database: database, interval: probeInterval)
        let encoder = Response.defaultJSONEncoder()
        // Encoding three strings cannot fail; the fallback only satisfies `try`.
        upBody = (try? encoder.encode(HealthResponse(status: "ok", database: "ok", version: version))) ?? Data()
        downBody = (try? encoder.encode(HealthResponse(status: "unavailable", database: "unreachable", version: version))) ?? Data()
    }

    public func register(on router: Router) {
        router.add(.GET, "/v1/health", handler: health)
    }

    @Sendable func health(_ request: Request) throws -> Response {
        let isUp = probe.isUp()
        return Response(
            status: isUp ? 200 : 503, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: .bytes(isUp ? upBody : downBody))
    }
}

/// The outcome of the last `SELECT 1`, re-checked once it is older than the interval.
private final class DatabaseProbe: Sendable {
    private struct State {
        var checkedAt: ContinuousClock.Instant
        var isUp: Bool
        /// A request is running the probe; others keep answering the previous outcome.
        var isProbing: Bool
    }

    private let database: PostgresClient
    private let interval: Duration
    private let state = Mutex<State?>(nil)

    init(database: PostgresClient, interval: Duration) {
        self.database = database
        self.interval = interval
    }

    func isUp() -> Bool {
        let now = ContinuousClock.now
        let cached = state.withLock { state -> Bool? in
            guard var current = state else { return nil }
            if now - current.checkedAt < interval || current.isProbing { return current.isUp }
            current.isProbing = true
            state = current
            return nil
        }
        if let cached { return cached }
        let isUp = (try? database.withConnection { try $0.query("SELECT 1") }) != nil
        state.withLock { $0 = State(checkedAt: .now, isUp: isUp, isProbing: false) }
        return isUp
    }
}
