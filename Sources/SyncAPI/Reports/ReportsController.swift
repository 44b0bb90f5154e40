import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `POST /v1/reports/sync` and `GET /v1/assignments?since=` (PROTOCOL.md "Inspection reports"):
/// the simple contract of report apps, on the `reports` and `assignments` collections.
///
/// Both calls are recorded as device syncs, like a push and a pull, so report apps appear in
/// the sync centre and the roll-ups with their user, team and app version.
public struct ReportsController: Sendable {
    let reports: ReportSyncService
    let assignments: any AssignmentReader
    let photos: ReportPhotoService
    let visits: any SyncVisitRecorder
    let schemaVersion: Int

    /// The longest `appVersion` a report sync body may carry, in characters (code points).
    static let maxAppVersionLength = 64

    public init(
        reports: ReportSyncService, assignments: any AssignmentReader, photos: ReportPhotoService, visits: any SyncVisitRecorder,
        schemaVersion: Int
    ) {
        self.reports = reports
        self.assignments = assignments
        self.photos = photos
        self.visits = visits
        self.schemaVersion = schemaVersion
    }

    public func register(on routes: APIRoutes) {
        routes.add(.POST, "/v1/reports/sync", admission: .reportSync, handler: sync)
        routes.add(.GET, "/v1/assignments", admission: .sync, handler: listAssignments)
        // One photo per request, streamed to disk as it arrives; the cap leaves room for the
        // multipart framing around the largest attachment the default settings allow.
        routes.add(
            .POST, "/v1/reports/{serverId}/photos", admission: .sync,
            options: RouteOptions(maxBodyBytes: Self.maxPhotoRequestBytes, streamsBodyToFile: true),
            handler: uploadPhoto)
    }

    @Sendable func sync(_ device: DeviceContext) throws -> Response {
        let settings = device.settings
        let body = try device.request.decode(ReportSyncRequest.self)
        if let field = body.firstUnstorableMember() { throw APIError.unstorableText(field: field) }
        if let version = body.appVersion, version.unicodeScalars.count > Self.maxAppVersionLength {
            throw APIError.validationFailed(field: "appVersion", "appVersion must be at most \(Self.maxAppVersionLength) characters")
        }
        // Each report is its own transaction; the push batch limit bounds one request's work.
        guard body.reports.count <= settings.maxOpsPerPush else {
            throw APIError.validationFailed(field: "reports", "at most \(settings.maxOpsPerPush) reports per request")
        }
        let principal = try device.principal()
        let results = try reports.sync(body, by: principal)
        // The contract's apps send their version in the body; the header, when present, wins.
        let visit = SyncVisit(principal: principal, appVersion: device.appVersion ?? body.appVersion)
        try visits.record(visit, kind: .push, announced: true, durable: false)
        return respond([
            "results": .array(results.map(\.jsonValue)), "minSupportedAppVersion": .string(settings.minSupportedAppVersion),
            "serverSchemaVersion": .int(Int64(schemaVersion)),
        ])
    }

    @Sendable func listAssignments(_ device: DeviceContext) throws -> Response {
        let settings = device.settings
        let since = try Self.since(device.request.query["since"])
        let principal = try device.principal()
        let page = try assignments.assignments(for: principal, since: since, limit: settings.maxPullLimit)
        try visits.record(
            SyncVisit(principal: principal, appVersion: device.appVersion), kind: .pull, announced: true, durable: false)
        let items: [JSONValue] = page.map {
            ["assignmentId": .string($0.assignmentId), "payload": .object($0.payload), "revision": .int($0.revision)]
        }
        return respond([
            "assignments": .array(items), "revision": .int(page.last?.revision ?? since), "hasMore": .bool(page.count == settings.maxPullLimit),
            "minSupportedAppVersion": .string(settings.minSupportedAppVersion), "serverSchemaVersion": .int(Int64(schemaVersion)),
        ])
    }

    static let maxPhotoRequestBytes = (50 << 20) + (64 << 10)

    @Sendable func uploadPhoto(_ device: DeviceContext) throws -> Response {
        let (request, settings) = (device.request, device.settings)
        let serverId = try request.parameter("serverId")
        guard let body = request.bodyFile else { throw APIError.internalError() }
        let part: MultipartFile
        do {
            let boundary = try MultipartFileReader.boundary(contentType: request.headers["content-type"])
            var reader = try MultipartFileReader(body: body, boundary: boundary)
            part = try reader.firstFile(into: body.deletingLastPathComponent())
        } catch let error as MultipartError {
            throw APIError.validationFailed(field: "photo", "unreadable multipart/form-data body: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: part.url) }
        let principal = try device.principal()
        let receipt = try photos.attach(part.url, contentType: part.contentType ?? "application/octet-stream", to: serverId, by: principal)
        return respond([
            "serverId": .string(receipt.serverId), "attachmentId": .string(receipt.attachmentId),
            "revision": receipt.revision.map(JSONValue.int) ?? .null,
            "photosReceived": .int(Int64(receipt.photosReceived)), "photosExpected": receipt.photosExpected.map { .int(Int64($0)) } ?? .null,
            "photosComplete": .bool(receipt.photosComplete), "minSupportedAppVersion": .string(settings.minSupportedAppVersion),
            "serverSchemaVersion": .int(Int64(schemaVersion)),
        ])
    }

    private func respond(_ body: JSONValue) -> Response {
        Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(body.canonicalData()))
    }

    /// The `since` revision: absent means 0 (everything).
    static func since(_ text: String?) throws -> Int64 {
        guard let text else { return 0 }
        guard let value = Int64(text), value >= 0 else {
            throw APIError.validationFailed(field: "since", "since must be a revision (an integer >= 0)")
        }
        return value
    }
}
