import App
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real FieldSync application on a fresh database and data folder, on a free loopback port,
/// for the attachment tests. The per-device rate limit is raised so tests measure behaviour,
/// not throttling.
final class AttachmentTestServer: Sendable {
    let application: Application
    /// A pool on the server's database, to inspect and age rows.
    let database: PostgresClient
    let dataDirectory: URL

    private init(application: Application, database: PostgresClient, dataDirectory: URL) {
        self.application = application
        self.database = database
        self.dataDirectory = dataDirectory
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func start(adjust: (inout ServerSettings) -> Void = { _ in }) throws -> AttachmentTestServer {
        let configuration = try TestDatabase.configuration()
        var options = PostgresClient.Options()
        options.maxConnections = 2
        let client = PostgresClient(configuration: configuration, options: options, logger: Logger(label: "test", level: .warning))
        let logger = Logger(label: "fieldsync.test", level: .warning)
        try Migrator(client: client, directory: repository.appendingPathComponent("Migrations"), logger: logger).migrate()
        var settings = ServerSettings()
        settings.deviceRequestsPerSecond = 10_000
        settings.deviceRequestBurst = 10_000
        adjust(&settings)
        try SettingsStore(database: client).update(settings, by: nil)
        var app = AppConfiguration(resourcesDirectory: repository)
        app.port = 0
        app.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-att-\(UUID().uuidString.prefix(8))")
        app.databaseURL = url(of: configuration)
        app.databasePoolSize = 4
        app.workerThreads = 8
        app.passwordIterations = 1000
        app.adminPassword = "admin-password"
        return AttachmentTestServer(
            application: try Application.start(app, logger: logger), database: client, dataDirectory: app.dataDirectory)
    }

    func stop() {
        application.shutdown()
        database.shutdown()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// A new user with a token for `deviceId`.
    func device(role: Role = .field, team: String? = "north", deviceId: String = "dev-\(UUID().uuidString.prefix(8))") throws
        -> TestDevice
    {
        let accounts = application.services.accounts
        let user = try accounts.createUser(
            username: "\(role.rawValue)-\(UUID().uuidString.prefix(8).lowercased())", role: role, teamId: team, passwordHash: "unused")
        return try device(of: user, deviceId: deviceId)
    }

    /// Another device of an existing user.
    func device(of user: UserAccount, deviceId: String = "dev-\(UUID().uuidString.prefix(8))") throws -> TestDevice {
        let token = try application.services.accounts.issueToken(
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

    func send(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], token: String?) async throws
        -> HTTPAnswer
    {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(application.port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.setValue("2.3.0", forHTTPHeaderField: "X-App-Version")
        return try await withCheckedThrowingContinuation { continuation in
            Self.session.dataTask(with: request) { data, response, error in
                guard let response = response as? HTTPURLResponse else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    return
                }
                let headers = response.allHeaderFields.reduce(into: [String: String]()) { $0["\($1.key)".lowercased()] = "\($1.value)" }
                continuation.resume(returning: HTTPAnswer(status: response.statusCode, headers: headers, body: data ?? Data()))
            }.resume()
        }
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

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// `postgres://user[:password]@host:port/database[?host=<socket dir>]`, as `DATABASE_URL` expects.
    private static func url(of configuration: PostgresConfiguration) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        var url = "postgres://\(encode(configuration.user))"
        if let password = configuration.password { url += ":\(encode(password))" }
        url += "@\(encode(configuration.host)):\(configuration.port)/\(encode(configuration.database))"
        if let socket = configuration.unixSocketDirectory { url += "?host=\(encode(socket))" }
        return url
    }
}

/// One HTTP answer.
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
