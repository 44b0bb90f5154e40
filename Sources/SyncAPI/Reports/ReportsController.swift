import Foundation
import HTTP
import Storage
import SyncEngine
import SyncProtocol

/// `POST /v1/reports/sync` and `GET /v1/assignments?since=` (PROTOCOL.md "Inspection reports"):
/// the simple contract of report apps, on the `reports` and `assignments` collections.
public struct ReportsController: Sendable {
    let authenticator: Authenticator
    let principals: PrincipalResolver
    let gate: SyncGate
    let reports: ReportSyncService
    let assignments: AssignmentFeed
    let schemaVersion: Int

    public init(
        authenticator: Authenticator, principals: PrincipalResolver, gate: SyncGate, reports: ReportSyncService, assignments: AssignmentFeed,
        schemaVersion: Int
    ) {
        self.authenticator = authenticator
        self.principals = principals
        self.gate = gate
        self.reports = reports
        self.assignments = assignments
        self.schemaVersion = schemaVersion
    }

    public func register(on router: Router) {
        router.add(.POST, "/v1/reports/sync", handler: sync)
        router.add(.GET, "/v1/assignments", handler: listAssignments)
    }

    @Sendable func sync(_ request: Request) throws -> Response {
        let identity = try authenticator.authenticate(request)
        let settings = try gate.admit(request, identity: identity)
        let body = try request.decode(ReportSyncRequest.self)
        let principal = try principals.principal(for: identity)
        let results = try mappingSyncErrors { try reports.sync(body, by: principal) }
        return respond([
            "results": .array(results.map(\.jsonValue)), "minSupportedAppVersion": .string(settings.minSupportedAppVersion),
            "serverSchemaVersion": .int(Int64(schemaVersion)),
        ])
    }

    @Sendable func listAssignments(_ request: Request) throws -> Response {
        let identity = try authenticator.authenticate(request)
        let settings = try gate.admit(request, identity: identity)
        let since = try Self.since(request.query["since"])
        let page = try assignments.assignments(
            for: try principals.principal(for: identity), since: since, limit: settings.maxPullLimit)
        let items: [JSONValue] = page.map {
            ["assignmentId": .string($0.assignmentId), "payload": .object($0.payload), "revision": .int($0.revision)]
        }
        return respond([
            "assignments": .array(items), "revision": .int(page.last?.revision ?? since), "hasMore": .bool(page.count == settings.maxPullLimit),
            "minSupportedAppVersion": .string(settings.minSupportedAppVersion), "serverSchemaVersion": .int(Int64(schemaVersion)),
        ])
    }

    private func respond(_ body: JSONValue) -> Response {
        Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(body.canonicalData()))
    }

    /// The `since` revision: absent means 0 (everything).
    static func since(_ text: String?) throws -> Int64 {
        guard let text else { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw HTTPError.validationFailed(field: "since", message: "since must be a revision (an integer >= 0)")
        }
        return value
    }
}
