import Dispatch
import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Synchronization

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

    public init(probe: any HealthProbe, version: String, probeInterval: Duration = .seconds(1)) {
        self.probe = DatabaseProbe(probe: probe, interval: probeInterval)
        let encoder = Response.defaultJSONEncoder()
        // Encoding three strings cannot fail; the fallback only satisfies `try`.
        upBody = (try? encoder.encode(HealthResponse(status: "ok", database: "ok", version: version))) ?? Data()
        downBody = (try? encoder.encode(HealthResponse(status: "unavailable", database: "unreachable", version: version))) ?? Data()
    }

    public func register(on routes: APIRoutes) {
        routes.addPublic(.GET, "/v1/health", handler: health)
    }

    @Sendable func health(_ request: Request) throws -> Response {
        let isUp = probe.isUp()
        return Response(
            status: isUp ? 200 : 503, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: .bytes(isUp ? upBody : downBody))
    }
}

/// The outcome of the last probe, re-checked once it is older than the interval.
///
/// Every health request reads it, so the fresh case is one atomic load: a lock here was
/// contended enough under load to park threads.
private final class DatabaseProbe: Sendable {
    private let database: any HealthProbe
    private let interval: UInt64
    /// `validUntil << 1 | isUp`, `validUntil` in uptime nanoseconds; 0 before the first probe.
    private let outcome = Atomic<UInt64>(0)
    /// Set while one request runs the probe; the others answer the previous outcome meanwhile.
    private let isProbing = Atomic<Bool>(false)

    init(probe: any HealthProbe, interval: Duration) {
        database = probe
        let (seconds, attoseconds) = interval.components
        self.interval = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    func isUp() -> Bool {
        let known = outcome.load(ordering: .acquiring)
        if known != 0 && DispatchTime.now().uptimeNanoseconds < known >> 1 { return known & 1 == 1 }
        guard isProbing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return known == 0 ? probe() : known & 1 == 1
        }
        defer { isProbing.store(false, ordering: .releasing) }
        return probe()
    }

    private func probe() -> Bool {
        let isUp = database.databaseAnswers()
        let validUntil = DispatchTime.now().uptimeNanoseconds + interval
        outcome.store(validUntil << 1 | (isUp ? 1 : 0), ordering: .releasing)
        return isUp
    }
}
