import App
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

/// The people of the assignment tests: dispatcher dee, admin-role office user adele,
/// supervisor sue, field users ana (team north) and bo (team south), each field user on a
/// signed-in phone.
struct AssignmentScene {
    let server: WebTestServer
    let dee: Browser
    let ana: WebDevice
    let bo: WebDevice
    let deeId: String
    let anaId: String
    let boId: String

    static func open(_ server: WebTestServer) throws -> AssignmentScene {
        let dee = try server.createUser("dee", role: .dispatcher)
        try server.createUser("adele", role: .admin)
        try server.createUser("sue", role: .supervisor, team: "north")
        let ana = try server.createUser("ana", role: .field, team: "north")
        let bo = try server.createUser("bo", role: .field, team: "south")
        return AssignmentScene(
            server: server, dee: try server.signedIn(as: "dee"), ana: try WebDevice(server, username: "ana", deviceId: "ana-phone"),
            bo: try WebDevice(server, username: "bo", deviceId: "bo-phone"), deeId: dee.id, anaId: ana.id, boId: bo.id)
    }

    /// The form fields of an assignment, with `changes` replacing some.
    static func fields(_ changes: [String: String] = [:]) -> [(String, String)] {
        let values = ["title": "Replace boiler valve", "siteId": "site-12", "dueDate": "2026-12-24", "status": "open", "assignee": "ana", "team": "north"]
            .merging(changes) { $1 }
        return values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Creates an assignment through the form and returns its record id.
    func create(_ changes: [String: String] = [:]) throws -> String {
        let created = try dee.submit("/admin/assignments", from: "/admin/assignments/new", Self.fields(changes))
        try #require(created.status == 303, "create answered \(created.status): \(created.body)")
        let location = try #require(created.location)
        let prefix = "/admin/assignments/assignments/"
        try #require(location.hasPrefix(prefix) && location.hasSuffix("?notice=created"), "redirect: \(location)")
        return String(location.dropFirst(prefix.count).dropLast("?notice=created".count))
    }

    /// Posts the record's form as loaded now, with `changes` to its fields.
    func edit(_ path: String, as browser: Browser? = nil, _ changes: [(String, String)]) throws -> WebResponse {
        let browser = browser ?? dee
        let page = try browser.get(path)
        let base = try #require(Self.hidden("baseServerSeq", in: page.body), "no baseServerSeq on \(path)")
        return try browser.post(path, changes + [("baseServerSeq", base), ("_csrf", try #require(page.csrfToken))])
    }

    /// The value of a hidden input on a page.
    static func hidden(_ name: String, in body: String) -> String? {
        guard let start = body.range(of: #"name="\#(name)" value=""#) else { return nil }
        return String(body[start.upperBound...].prefix { $0 != "\"" })
    }

    /// The records count, to show nothing was written.
    func recordCount() throws -> Int {
        try server.integer("SELECT count(*)::int FROM records")
    }
}

extension WebDevice {
    /// One pull page from `cursor` (the first sync without one).
    func pull(after cursor: String? = nil) throws -> PullResponse {
        let target = "/v1/sync/pull?limit=500" + (cursor.map { "&cursor=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? "")
        let response = try get(target)
        try #require(response.status == 200, "pull answered \(response.status): \(response.body)")
        return try JSONDecoder().decode(PullResponse.self, from: Data(response.body.utf8))
    }
}

extension PullResponse {
    /// The change of one record, if the page has one.
    func change(_ collection: String, _ recordId: String) -> Change? {
        changes.first { $0.collection == collection && $0.recordId == recordId }
    }
}
