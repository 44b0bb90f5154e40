import Foundation
import HTTP
import Storage
import SyncEngine
import SyncProtocol

/// `POST /v1/sync/push` and `GET /v1/sync/pull` (PROTOCOL.md, Push and Pull).
public struct SyncController: Sendable {
    let authenticator: Authenticator
    let principals: PrincipalResolver
    let gate: SyncGate
    let pushes: PushService
    let pulls: PullStore
    let devices: DeviceSyncStore
    let cursors: PullCursorCodec
    let schema: Schema

    public init(
        authenticator: Authenticator, principals: PrincipalResolver, gate: SyncGate, pushes: PushService, pulls: PullStore,
        devices: DeviceSyncStore, cursors: PullCursorCodec, schema: Schema
    ) {
        self.authenticator = authenticator
        self.principals = principals
        self.gate = gate
        self.pushes = pushes
        self.pulls = pulls
        self.devices = devices
        self.cursors = cursors
        self.schema = schema
    }

    public func register(on routes: APIRoutes) {
        routes.add(.POST, "/v1/sync/push", handler: push)
        routes.add(.GET, "/v1/sync/pull", handler: pull)
    }

    @Sendable func push(_ request: Request) throws -> Response {
        let (identity, settings) = try gate.admit(request, authenticatedBy: authenticator)
        let body = try request.decode(PushRequest.self, quickly: PushRequest.init(quickly:))
        let principal = try principals.principal(for: identity)
        let visit = SyncVisit(principal: principal, appVersion: request.headers["x-app-version"])
        let outcome = try pushes.push(body, by: principal, configuration: limits(settings), visit: visit)
        // The push's own transaction recorded the visit, unless every op failed in the fallback.
        let newServerSeq = try outcome.newServerSeq ?? devices.recordSync(visit, kind: "push")
        // Written through JSONValue: the same JSON as `PushResponse`, without JSONEncoder's cost.
        let response: JSONValue = [
            "results": .array(outcome.results.map(\.jsonValue)),
            "newServerSeq": .int(newServerSeq),
            "minSupportedAppVersion": .string(settings.minSupportedAppVersion), "serverSchemaVersion": .int(Int64(schema.version)),
        ]
        return Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(response.canonicalData()))
    }

    @Sendable func pull(_ request: Request) throws -> Response {
        let (identity, settings) = try gate.admit(request, authenticatedBy: authenticator)
        let limit = try Self.limit(request.query["limit"], maximum: settings.maxPullLimit)
        let cursor = try request.query["cursor"].map { try cursors.decode($0) }
        let principal = try principals.principal(for: identity)
        let page = try pulls.page(
            for: principal, after: cursor?.position ?? 0, initialSyncStart: cursor?.initialSyncStart, startInitialSync: cursor == nil,
            limit: limit)
        try devices.recordSync(SyncVisit(principal: principal, appVersion: request.headers["x-app-version"]), kind: "pull")
        let next = PullCursor(position: page.position, initialSyncStart: page.initialSyncStart, issuedAt: Date())
        let body = PullResponseWriter.write(
            changes: page.changes, nextCursor: cursors.encode(next), hasMore: page.hasMore, newServerSeq: page.newServerSeq,
            minSupportedAppVersion: settings.minSupportedAppVersion, serverSchemaVersion: schema.version)
        return Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(body))
    }

    /// The engine's tunables with the operator's push limits: `maxOpsPerPush` and the
    /// `occurredAt` window.
    private func limits(_ settings: ServerSettings) -> SyncConfiguration {
        var configuration = pushes.processor.configuration
        configuration.maxOpsPerPush = settings.maxOpsPerPush
        configuration.occurredAtWindow = TimeInterval(settings.occurredAtWindowDays) * 86_400
        return configuration
    }

    /// The page size: 500 by default, clamped to the configured maximum.
    static func limit(_ text: String?, maximum: Int) throws -> Int {
        guard let text else { return maximum }
        guard let value = Int(text), value >= 1 else {
            throw APIError.validationFailed(field: "limit", "limit must be a positive integer")
        }
        return min(value, maximum)
    }
}
