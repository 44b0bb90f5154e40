import App
import Foundation

/// A back-office browser for benchmarks: one keep-alive loopback connection, the cookies
/// the server set, and requests shaped like a browser's.
final class BackOfficeBrowser {
    private let port: Int
    private var connection: LoopbackConnection
    private var cookies: [String: String] = [:]

    init(port: Int) throws {
        self.port = port
        connection = try LoopbackConnection(port: port)
    }

    /// Signs in through the sign-in form: `GET /login` sets the nonce cookie and carries the
    /// CSRF token, `POST /login` answers 303 with the session cookie.
    /// - Throws: `CommandError` when either step does not answer as a browser expects.
    func signIn(username: String, password: String) throws {
        let token = try csrfToken(at: "/login")
        let answer = try post("/login", form: [("_csrf", token), ("username", username), ("password", password), ("next", "/admin")])
        guard answer.status == 303, cookies["fieldsync_session"] != nil else {
            throw CommandError("sign-in of \(username) answered \(answer.status)")
        }
    }

    /// The CSRF token of the first form on the page at `target`.
    /// - Throws: `CommandError` when the page has no form.
    func csrfToken(at target: String) throws -> String {
        let body = String(decoding: try get(target).body, as: UTF8.self)
        guard let field = body.range(of: #"name="_csrf" value=""#) else { throw CommandError("GET \(target) has no form") }
        return String(body[field.upperBound...].prefix { $0 != "\"" })
    }

    /// Sends `POST target` with `fields` url-encoded, as a form does.
    func post(_ target: String, form fields: [(String, String)]) throws -> LoopbackResponse {
        let encoded = fields.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        return try send("POST", target, body: Data(encoded.utf8), headers: [("Content-Type", "application/x-www-form-urlencoded")])
    }

    /// Sends `GET target` with the cookies and `headers`.
    func get(_ target: String, headers: [(String, String)] = []) throws -> LoopbackResponse {
        try send("GET", target, body: nil, headers: headers)
    }

    private func send(_ method: String, _ target: String, body: Data?, headers: [(String, String)]) throws -> LoopbackResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/html,application/json\r\n"
        if !cookies.isEmpty { head += "Cookie: " + cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        let answer = try connection.exchange(Data(head.utf8) + (body ?? Data()))
        for cookie in answer.values("set-cookie") { keep(cookie) }
        // A browser opens a new connection when the server ends this one.
        if answer.closesConnection { connection = try LoopbackConnection(port: port) }
        return answer
    }

    /// Stores (or, with `Max-Age=0`, forgets) the cookie of one `Set-Cookie` value.
    private func keep(_ setCookie: String) {
        let parts = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        cookies[name] = parts.contains { $0.lowercased() == "max-age=0" } ? nil : String(pair[pair.index(after: equals)...])
    }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
