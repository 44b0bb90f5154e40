import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `POST /v1/sync/push` and `GET /v1/sync/pull` (PROTOCOL.md, Push and Pull).
public struct SyncController: Sendable {
    let pushes: PushService
    let pulls: PullService
    let visits: any SyncVisitRecorder
    let schema: Schema

    public init(pushes: PushService, pulls: PullService, visits: any SyncVisitRecorder, schema: Schema) {
        self.pushes = pushes
        self.pulls = pulls
        self.visits = visits
        self.schema = schema
    }

    public func register(on routes: APIRoutes) {
        routes.add(.POST, "/v1/sync/push", admission: .sync, handler: push)
        routes.add(.GET, "/v1/sync/pull", admission: .sync, handler: pull)
    }

    @Sendable func push(_ device: DeviceContext) throws -> Response {
        // Accepted for the batch, but deduplication is per op: only its form is checked.
        _ = try IdempotencyKeyHeader.optionalValue(of: device.request)
        let body = try device.request.decode(PushRequest.self, quickly: PushRequest.init(quickly:))
        let principal = try device.principal()
        let settings = device.settings
        let visit = SyncVisit(principal: principal, appVersion: device.appVersion)
        let outcome = try pushes.push(body, by: principal, configuration: limits(settings), visit: visit)
        // The push's own transaction recorded the visit, unless every op failed in the fallback.
        let newServerSeq = try outcome.newServerSeq ?? visits.record(visit, kind: .push, announced: true, durable: false)
        // Written member by member: the same JSON as `PushResponse`, without JSONEncoder's cost
        // or a JSONValue tree per result.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + 128 * outcome.results.count)
        var response = CanonicalObject(into: &bytes)
        response.member("minSupportedAppVersion", .string(settings.minSupportedAppVersion), into: &bytes)
        response.member("newServerSeq", .int(newServerSeq), into: &bytes)
        response.open("results", into: &bytes)
        bytes.append(UInt8(ascii: "["))
        for (index, result) in outcome.results.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            result.writeCanonical(into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        response.member("serverSchemaVersion", .int(Int64(schema.version)), into: &bytes)
        response.close(into: &bytes)
        return Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(Data(bytes)))
    }

    @Sendable func pull(_ device: DeviceContext) throws -> Response {
        let settings = device.settings
        let limit = try Self.limit(device.request.query["limit"])
        let form = try FieldMetaForm.parse(device.request.query["fieldMeta"])
        let principal = try device.principal()
        let page = try pulls.page(for: principal, cursor: device.request.query["cursor"], limit: limit, maximum: settings.maxPullLimit)
        // Every page stamps the device row; the live feed hears of the pull once the device has
        // caught up, not once per page of a long initial sync. The visit commits before the
        // answer: durably when the cursor holds the horizon, which is then never issued again
        // should PostgreSQL crash.
        try visits.record(
            SyncVisit(principal: principal, appVersion: device.appVersion), kind: .pull, announced: !page.hasMore,
            durable: page.carriesHorizon)
        let writer = PullResponseWriter(
            page: page, form: form, minSupportedAppVersion: settings.minSupportedAppVersion, serverSchemaVersion: schema.version)
        var headers: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8", "Vary": "Accept-Encoding"]
        guard AcceptEncoding(device.request.headers).allowsGzip else { return Response(headers: headers, body: .bytes(writer.body())) }
        headers["Content-Encoding"] = "gzip"
        return Response(headers: headers, body: .stream(ProducedStream.gzip { write in try writer.write(to: write) }))
    }

    /// The engine's tunables with the operator's push limits: `maxOpsPerPush` and the
    /// `occurredAt` window.
    private func limits(_ settings: ServerSettings) -> SyncConfiguration {
        var configuration = pushes.processor.configuration
        configuration.maxOpsPerPush = settings.maxOpsPerPush
        configuration.occurredAtWindow = TimeInterval(settings.occurredAtWindowDays) * 86_400
        return configuration
    }

    /// The page size asked for; nil when absent (the configured maximum).
    static func limit(_ text: String?) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), value >= 1 else {
            throw APIError.validationFailed(field: "limit", "limit must be a positive integer")
        }
        return value
    }
}
