import Foundation
import SyncProtocol

/// The device endpoints of PROTOCOL.md as typed calls: JSON in and out, the device headers
/// on every call, error answers turned into ``APIFailure``, and each answer's `Date` header
/// handed to the server clock.
struct ServerAPI: Sendable {
    let baseURL: URL
    let transport: any HTTPTransport
    let deviceId: String
    let appVersion: String
    let clock: ServerClock
    /// Pulls ask for the compact field metadata.
    var compactFieldMeta = false

    // MARK: - Accounts and settings

    func token(_ request: TokenRequest) async throws(APIFailure) -> TokenResponse {
        try await call("POST", "v1/auth/token", json: request, token: nil)
    }

    /// `DELETE /v1/auth/token`: the token stops working at once.
    func revoke(token: String) async throws(APIFailure) {
        _ = try await send("DELETE", "v1/auth/token", body: nil, headers: [:], token: token)
    }

    func config(token: String) async throws(APIFailure) -> ConfigResponse {
        try await call("GET", "v1/config", token: token)
    }

    // MARK: - Sync

    func push(_ request: PushRequest, token: String) async throws(APIFailure) -> PushResponse {
        try await call("POST", "v1/sync/push", json: request, token: token)
    }

    func pull(cursor: String?, limit: Int, token: String) async throws(APIFailure) -> PullResponse {
        var query = "limit=\(limit)" + (compactFieldMeta ? "&fieldMeta=compact" : "")
        if let cursor { query += "&cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? cursor) }
        return try await call("GET", "v1/sync/pull?" + query, token: token)
    }

    // MARK: - Attachments

    func register(_ registration: AttachmentRegistration, token: String) async throws(APIFailure) -> AttachmentSession {
        try await call("POST", "v1/attachments", json: registration, token: token)
    }

    func putChunk(attId: String, index: Int, bytes: Data, sha256: String, token: String) async throws(APIFailure) {
        let headers = ["Content-Type": "application/octet-stream", "X-Chunk-SHA256": sha256]
        _ = try await send("PUT", "v1/attachments/\(attId)/chunks/\(index)", body: bytes, headers: headers, token: token)
    }

    func finalize(attId: String, chunkSha256: [String], token: String) async throws(APIFailure) -> FinalizeResponse {
        try await call("POST", "v1/attachments/\(attId)/finalize", json: FinalizeRequest(chunkSha256: chunkSha256), token: token)
    }

    // MARK: - Plumbing

    private func call<Answer: Decodable>(_ method: String, _ path: String, token: String?) async throws(APIFailure) -> Answer {
        try Self.decode(try await send(method, path, body: nil, headers: [:], token: token))
    }

    private func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, json: Body, token: String?
    ) async throws(APIFailure) -> Answer {
        let body: Data
        do {
            body = try JSONEncoder().encode(json)
        } catch {
            throw .unreadable("cannot encode the request: \(error)")
        }
        return try Self.decode(try await send(method, path, body: body, headers: ["Content-Type": "application/json"], token: token))
    }

    private func send(
        _ method: String, _ path: String, body: Data?, headers: [String: String], token: String?
    ) async throws(APIFailure) -> HTTPResponse {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw .unreadable("bad path \(path)") }
        var request = HTTPRequest(method: method, url: url, headers: headers, body: body)
        request.headers["Accept"] = "application/json"
        request.headers["X-App-Version"] = appVersion
        request.headers["X-Device-Id"] = deviceId
        if let token { request.headers["Authorization"] = "Bearer " + token }
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .network(String(describing: error))
        }
        clock.observe(dateHeader: response.header("Date"))
        guard (200..<300).contains(response.status) else {
            let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: response.body)
            let retryAfter = response.header("Retry-After").flatMap(Int.init).map { Duration.seconds(max($0, 0)) }
            throw .refused(status: response.status, error: envelope?.error, retryAfter: retryAfter)
        }
        return response
    }

    private static func decode<Answer: Decodable>(_ response: HTTPResponse) throws(APIFailure) -> Answer {
        do {
            return try JSONDecoder().decode(Answer.self, from: response.body)
        } catch {
            throw .unreadable("\(Answer.self): \(error)")
        }
    }

    /// Characters left as they are in a query value (the cursor is base64url with a dot).
    private static let queryValue = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
