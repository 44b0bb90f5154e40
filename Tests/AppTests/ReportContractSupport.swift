import AppTesting
import Foundation
import SyncProtocol

/// The simple report contract (`POST /v1/reports/sync`, `GET /v1/assignments`) as a report app speaks it.
extension SyncDevice {
    /// One report of a sync request.
    static func report(
        _ localId: String, assignmentId: String = "as-1", answers: Values = ["ok": .bool(true)], serverId: String? = nil,
        baseRevision: Int64? = nil
    ) -> JSONValue {
        var members: Values = ["localId": .string(localId), "assignmentId": .string(assignmentId), "payload": .object(answers)]
        if let serverId { members["serverId"] = .string(serverId) }
        if let baseRevision { members["baseRevision"] = .int(baseRevision) }
        return .object(members)
    }

    /// `POST /v1/reports/sync`; the raw answer.
    func sendReports(_ reports: [JSONValue]) async throws -> TestResponse {
        let body: JSONValue = [
            "deviceId": .string(deviceId), "appVersion": .string(appVersion), "schemaVersion": .int(3), "reports": .array(reports),
        ]
        return try await server.client.post("/v1/reports/sync", json: body, headers: headers, token: token)
    }

    /// The per-report results of a sync that must answer 200.
    func syncReports(_ reports: [JSONValue]) async throws -> [JSONValue] {
        let response = try await sendReports(reports)
        guard response.status == 200, let results = try response.json()["results"]?.arrayValue else {
            throw TestServerError("reports/sync answered \(response)")
        }
        return results
    }

    /// `GET /v1/assignments?since=`; the decoded answer of a 200.
    func assignments(since: Int64? = nil) async throws -> JSONValue {
        let response = try await server.client.get("/v1/assignments" + (since.map { "?since=\($0)" } ?? ""), headers: headers, token: token)
        guard response.status == 200 else { throw TestServerError("assignments answered \(response)") }
        return try response.json()
    }
}

extension SyncDevice {
    /// `POST /v1/reports/{serverId}/photos` with one photo as multipart/form-data; the raw answer.
    func uploadPhoto(_ bytes: Data, to serverId: String, boundary: String = "fs-boundary-7") async throws -> TestResponse {
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\n".utf8)
        body += Data("Content-Type: image/jpeg\r\n\r\n".utf8) + bytes + Data("\r\n--\(boundary)--\r\n".utf8)
        let headers = headers.merging(["Content-Type": "multipart/form-data; boundary=\(boundary)"]) { _, new in new }
        return try await server.client.send("POST", "/v1/reports/\(serverId)/photos", body: body, headers: headers, token: token)
    }
}
