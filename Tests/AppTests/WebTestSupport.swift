import App
import AppTesting
import Cryptography
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import SyncProtocol
import Synchronization
import Testing
import WebUI

// A small harness for the back-office tests: the real application on a fresh database,
// and a browser that speaks HTTP over a socket and keeps cookies.

/// A clock the tests move by hand; the back-office times sessions with it.
final class TestClock: Sendable {
    /// A fixed, ordinary noon, so "today" never straddles midnight during a test.
    static let start = Date(timeIntervalSince1970: 1_781_524_800)  // 2026-06-15 12:00 UTC
    private let current = Mutex(TestClock.start)

    var now: Date { current.withLock { $0 } }

    func advance(minutes: Double) {
        current.withLock { $0 += minutes * 60 }
    }
}

/// A FieldSync server on port 0 and a fresh database, with the first admin signed up.
final class WebTestServer: Sendable {
    static let adminPassword = "admin-password-1"
    static let password = "user-password-1"

    let app: Application
    let clock = TestClock()

    /// - Parameter configure: adjusts the configuration before the start.
    init(configure: (inout AppConfiguration) -> Void = { _ in }) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var configuration = AppConfiguration(resourcesDirectory: root)
        configuration.port = 0
        configuration.databaseURL = DatabaseURL.string(for: try TestDatabase.configuration())
        configuration.databasePoolSize = 4
        configuration.workerThreads = 8
        configuration.passwordIterations = 1_000
        configuration.runsWorker = false
        configuration.adminPassword = Self.adminPassword
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-web-\(UUID().uuidString)")
        configuration.web.now = { [clock] in clock.now }
        configuration.web.timeZone = TimeZone(identifier: "UTC")!
        configure(&configuration)
        app = try Application.start(configuration, logger: Logger(label: "web-test", level: .warning))
    }

    func stop() {
        app.shutdown(timeout: .seconds(2))
    }

    var database: PostgresClient { app.core.database }

    /// Creates an account with `password` directly in the store.
    @discardableResult
    func createUser(_ username: String, role: Role, team: String? = nil) throws -> UserAccount {
        try app.core.accounts.createUser(
            username: username, role: role, teamId: team, passwordHash: try app.core.passwords.hash(Self.password))
    }

    /// A browser signed in as `username` (the admin when nil).
    func signedIn(as username: String? = nil) throws -> Browser {
        let browser = Browser(port: app.port)
        let response = try browser.signIn(username ?? "admin", password: username == nil ? Self.adminPassword : Self.password)
        try #require(response.status == 303, "sign-in of \(username ?? "admin") answered \(response.status)")
        return browser
    }

    /// A single number from SQL, e.g. a count.
    func integer(_ query: PostgresQuery) throws -> Int {
        try database.withConnection { try $0.query(query)[0].decode(0, as: Int.self) }
    }
}

/// One HTTP answer as the browser received it.
struct WebResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: String
    /// The body's bytes, for answers that are not text (a photo).
    var data = Data()

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var location: String? { header("Location") }
    var setCookies: [String] { headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value) }

    /// The value of the first hidden `_csrf` field on the page.
    var csrfToken: String? {
        guard let start = body.range(of: #"name="_csrf" value=""#) else { return nil }
        return String(body[start.upperBound...].prefix { $0 != "\"" })
    }
}

/// A minimal browser: one request per connection, cookies kept by name, no redirects
/// followed (tests look at them).
final class Browser {
    let port: Int
    private(set) var cookies: [String: String] = [:]
    /// Headers sent with every request, e.g. `X-Forwarded-Proto`.
    var extraHeaders: [(String, String)] = []

    init(port: Int) {
        self.port = port
    }

    func get(_ target: String) throws -> WebResponse {
        try send("GET", target)
    }

    /// Posts a url-encoded form.
    func post(_ target: String, _ fields: [(String, String)]) throws -> WebResponse {
        let body = fields.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return try send("POST", target, body: Data(body.utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// Posts a form with the CSRF token of the page at `formPage` added.
    func submit(_ target: String, from formPage: String, _ fields: [(String, String)] = []) throws -> WebResponse {
        let token = try #require(try get(formPage).csrfToken, "no CSRF token on \(formPage)")
        return try post(target, fields + [("_csrf", token)])
    }

    /// Opens the sign-in page and posts its form.
    func signIn(_ username: String, password: String, next: String? = nil) throws -> WebResponse {
        let page = try get("/login" + (next.map { "?next=" + Self.escape($0) } ?? ""))
        let token = try #require(page.csrfToken, "no sign-in form")
        return try post("/login", [("_csrf", token), ("username", username), ("password", password), ("next", next ?? "")])
    }

    func forget(cookie name: String) {
        cookies[name] = nil
    }

    func setCookie(_ name: String, _ value: String) {
        cookies[name] = value
    }

    func send(_ method: String, _ target: String, body: Data = Data(), contentType: String? = nil) throws -> WebResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if !cookies.isEmpty {
            head += "Cookie: " + cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n"
        }
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        let response = try Self.parse(try LoopbackSocket(port: port).exchange(Data((head + "\r\n").utf8) + body))
        for cookie in response.setCookies {
            let pair = cookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            cookies[name] = cookie.contains("Max-Age=0") ? nil : String(pair.count > 1 ? pair[1] : "")
        }
        return response
    }

    private static func parse(_ raw: Data) throws -> WebResponse {
        let text = String(decoding: raw, as: UTF8.self)
        let split = try #require(text.range(of: "\r\n\r\n"), "no end of headers")
        var lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = try #require(Int(lines.removeFirst().split(separator: " ")[1]))
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = raw.startIndex + text[..<split.upperBound].utf8.count
        let chunked = headers.contains { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }
        let body = chunked ? try dechunk(raw[bodyStart...]) : raw[bodyStart...]
        return WebResponse(status: status, headers: headers, body: String(decoding: body, as: UTF8.self), data: Data(body))
    }

    /// A chunked body (RFC 9112 §7.1) joined back together.
    private static func dechunk(_ raw: Data.SubSequence) throws -> Data {
        var rest = raw
        var body = Data()
        let crlf = Data("\r\n".utf8)
        while true {
            let sizeEnd = try #require(rest.range(of: crlf), "no chunk size line")
            let sizeLine = String(decoding: rest[..<sizeEnd.lowerBound], as: UTF8.self)
            let size = try #require(Int(sizeLine.split(separator: ";")[0], radix: 16), "bad chunk size")
            if size == 0 { return body }
            let start = sizeEnd.upperBound
            try #require(rest.distance(from: start, to: rest.endIndex) >= size + 2, "chunk shorter than its size")
            body.append(rest[start..<start + size])
            rest = rest[(start + size + 2)...]
        }
    }

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
    }
}

/// A blocking TCP connection to the loopback interface.
private final class LoopbackSocket {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = try Loopback.connect(port: port)
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Sends `request` and reads until the server closes the connection.
    func exchange(_ request: Data) throws -> Data {
        try Loopback.send(request, on: descriptor)
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            response.append(contentsOf: buffer[0..<count])
        }
        return response
    }
}
