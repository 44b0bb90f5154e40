import App
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

// Devices that sign in and push over the real protocol, for the back-office's sync pages.

/// A device signed in with `POST /v1/auth/token` that pushes ops with its bearer token,
/// numbering them 1, 2, 3… like the app does.
final class WebDevice {
    let deviceId: String
    let user: UserInfo
    private let browser: Browser
    private var clientSeq: Int64 = 0

    init(_ server: WebTestServer, username: String, deviceId: String, appVersion: String = "2.3.0") throws {
        browser = Browser(port: server.app.port)
        let login = TokenRequest(
            username: username, password: WebTestServer.password, deviceId: deviceId, platform: "android", appVersion: appVersion)
        let response = try browser.send("POST", "/v1/auth/token", body: try JSONEncoder().encode(login), contentType: "application/json")
        try #require(response.status == 200, "login of \(username) answered \(response.status): \(response.body)")
        let granted = try JSONDecoder().decode(TokenResponse.self, from: Data(response.body.utf8))
        self.deviceId = deviceId
        user = granted.user
        browser.extraHeaders = [("Authorization", "Bearer \(granted.token)"), ("X-App-Version", appVersion), ("X-Device-Id", deviceId)]
    }

    /// Pushes one op and returns its result.
    @discardableResult
    func push(
        _ type: OpType, _ collection: String, _ recordId: String, _ values: [String: JSONValue] = [:], base: Int64? = nil,
        old: [String: JSONValue] = [:]
    ) throws -> OpResult {
        clientSeq += 1
        let fields = Dictionary(uniqueKeysWithValues: values.map { ($0.key, FieldChange(old: old[$0.key], new: $0.value)) })
        let op = PushOp(
            opId: "\(deviceId)-op-\(clientSeq)", clientSeq: clientSeq, collection: collection, recordId: recordId, type: type,
            baseServerSeq: base, occurredAt: RFC3339.string(from: Date().addingTimeInterval(-60)),
            fields: type == .delete ? nil : fields)
        let body = try JSONEncoder().encode(PushRequest(deviceId: deviceId, schemaVersion: 3, ops: [op]))
        let response = try browser.send("POST", "/v1/sync/push", body: body, contentType: "application/json")
        try #require(response.status == 200, "push answered \(response.status): \(response.body)")
        return try JSONDecoder().decode(PushResponse.self, from: Data(response.body.utf8)).results[0]
    }

    /// Posts a JSON body with this device's token and the extra `headers`, e.g. an `Idempotency-Key`.
    func post(_ path: String, json body: Data, headers: [(String, String)] = []) throws -> WebResponse {
        try send("POST", path, body: body, contentType: "application/json", headers: headers)
    }

    /// Sends `body` with this device's token and the extra `headers`.
    func send(_ method: String, _ path: String, body: Data, contentType: String, headers: [(String, String)] = []) throws -> WebResponse {
        let signedIn = browser.extraHeaders
        defer { browser.extraHeaders = signedIn }
        browser.extraHeaders += headers
        return try browser.send(method, path, body: body, contentType: contentType)
    }

    /// `GET` with this device's token, e.g. `/v1/team/rollup`.
    func get(_ path: String) throws -> WebResponse {
        try browser.get(path)
    }
}

/// A `reports` record ana created and ben changed since, and ana's later edit of the same
/// field from a stale copy: the review queue's conflict, made through the protocol.
struct ReviewScenario {
    /// What ana's device wanted in `answers`; it carries markup that must never run.
    static let deviceAnswers: JSONValue = ["q1": "<script>alert('device')</script>"]
    static let serverAnswers: JSONValue = ["q1": "no"]

    let ana: WebDevice
    let ben: WebDevice
    let benSeq: Int64
    let result: OpResult
    var conflictId: String { result.conflictId ?? "" }

    static func open(_ server: WebTestServer) throws -> ReviewScenario {
        try server.createUser("ana", role: .field, team: "north")
        try server.createUser("ben", role: .field, team: "north")
        let ana = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        let ben = try WebDevice(server, username: "ben", deviceId: "ben-tablet", appVersion: "1.9.0")
        let created = try ana.push(.create, "reports", "rep-1", ["assignmentId": "as-1", "answers": ["q1": "yes"]])
        let createdSeq = try #require(created.serverSeq, "create: \(created)")
        let changed = try ben.push(.update, "reports", "rep-1", ["answers": serverAnswers], base: createdSeq)
        let benSeq = try #require(changed.serverSeq, "ben's update: \(changed)")
        let result = try ana.push(
            .update, "reports", "rep-1", ["answers": deviceAnswers, "photos": ["att-9"]], base: createdSeq, old: ["answers": ["q1": "yes"]])
        try #require(result.code == .reviewRequired && result.conflictId != nil, "ana's update: \(result)")
        return ReviewScenario(ana: ana, ben: ben, benSeq: benSeq, result: result)
    }
}

extension WebTestServer {
    /// A record's payload and sequence number, read straight from the table.
    func record(_ collection: String, _ recordId: String) throws -> (payload: [String: JSONValue], serverSeq: Int64, conflictId: String?) {
        try database.withConnection { connection in
            let row = try connection.query(
                "SELECT payload::text, server_seq, conflict_id FROM records WHERE collection = \(collection) AND record_id = \(recordId)")[0]
            let payload = try JSONDecoder().decode([String: JSONValue].self, from: Data(try row.decode(0, as: String.self).utf8))
            return (payload, try row.decode(1), try row.decode(2))
        }
    }
}
