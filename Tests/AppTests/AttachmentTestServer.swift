import App
import AppTesting
import Foundation
import Postgres
import Storage
import Support
import SyncEngine
import SyncProtocol

/// A real FieldSync server (AppTesting's `TestServer`) prepared for attachment tests: the
/// per-device rate limit raised so tests measure behaviour, not throttling, and a small pool
/// on its database to inspect and age rows.
final class AttachmentTestServer: Sendable {
    let server: TestServer
    let database: PostgresClient

    var application: Application { server.application }
    var dataDirectory: URL { server.dataDirectory }

    private init(server: TestServer, database: PostgresClient) {
        self.server = server
        self.database = database
    }

    static func start(adjust: (inout ServerSettings) -> Void = { _ in }) async throws -> AttachmentTestServer {
        let server = try await TestServer.start()
        var settings = try server.core.settings.current()
        settings.deviceRequestsPerSecond = 10_000
        settings.deviceRequestBurst = 10_000
        adjust(&settings)
        try server.core.settings.update(settings, by: nil)
        var options = PostgresClient.Options()
        options.maxConnections = 2
        let database = PostgresClient(configuration: server.database, options: options, logger: Logger(label: "test", level: .warning))
        return AttachmentTestServer(server: server, database: database)
    }

    func stop() {
        database.shutdown()
        server.stop()
    }

    /// A new user with a token for `deviceId`.
    func device(
        role: Role = .field, team: String? = "north", deviceId: String = "dev-\(UUID().uuidString.prefix(8))"
    ) throws
        -> TestDevice
    {
        try device(of: server.makeUser(role: role, team: team).user, deviceId: deviceId)
    }

    /// Another device of an existing user.
    func device(of user: UserAccount, deviceId: String = "dev-\(UUID().uuidString.prefix(8))") throws -> TestDevice {
        let token = try application.core.accounts.issueToken(
            userId: user.id, deviceId: deviceId, platform: "test", appVersion: "2.3.0", lifetime: 3600
        ).token
        return TestDevice(server: self, user: user, deviceId: deviceId, token: token)
    }

    /// Relative paths of every file under `<data>/<folder>` (e.g. `uploads`, `blobs`).
    func files(in folder: String) -> [String] {
        let root = dataDirectory.appendingPathComponent(folder)
        let all = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])?.allObjects as? [URL] ?? []
        return all.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .map { String($0.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)) }.sorted()
    }

    /// Runs SQL on the server's database and returns the first column of each row as text.
    func column(_ query: PostgresQuery) throws -> [String?] {
        try database.withConnection { connection in
            try connection.query(query).map { try $0.decode(0, as: String?.self) }
        }
    }

    // MARK: - HTTP

    func send(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], token: String?
    ) async throws
        -> HTTPAnswer
    {
        let response = try await server.client.send(
            method, path, body: body, headers: headers.merging(["X-App-Version": "2.3.0"]) { mine, _ in mine }, token: token)
        let lowercased = Dictionary(response.headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        return HTTPAnswer(status: response.status, headers: lowercased, body: response.body)
    }

    /// Sends only a request line and headers over a raw socket and returns what the server
    /// answers before any body arrives (e.g. a 413 for a declared length over the limit).
    func headersOnly(_ requestLine: String, headers: [String: String]) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(application.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let head = "\(requestLine) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
        _ = head.withCString { Foundation.send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &answer, answer.count, 0)
        return String(decoding: answer.prefix(max(count, 0)), as: UTF8.self)
    }
}

/// One HTTP answer, with the error envelope's parts at hand.
struct HTTPAnswer: CustomStringConvertible {
    let status: Int
    /// Lowercased names.
    let headers: [String: String]
    let body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    var error: [String: Any] { json["error"] as? [String: Any] ?? [:] }
    var errorCode: String? { error["code"] as? String }
    var details: [String: Any] { error["details"] as? [String: Any] ?? [:] }
    var description: String { "HTTP \(status) \(String(decoding: body.prefix(400), as: UTF8.self))" }
}
