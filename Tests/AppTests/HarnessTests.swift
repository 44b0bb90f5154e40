import AppTesting
import Foundation
import HTTP
import Postgres
import Support
import Testing

/// The test harness itself: the client's redirect and cookie rules, and database URLs.
@Suite("AppTesting harness")
struct HarnessTests {
    /// A bare HTTP server that redirects with two cookies and echoes the cookies it gets.
    private static func cookieServer() throws -> HTTPServer {
        let router = Router()
        router.add(.POST, "/login") { _ in
            var response = Response.redirect(to: "/home")
            response.headers.add(name: "Set-Cookie", value: "session=abc123; Path=/; HttpOnly; SameSite=Lax")
            response.headers.add(name: "Set-Cookie", value: "csrf=x-y-z; Path=/; Expires=Wed, 21 Oct 2043 07:28:00 GMT")
            return response
        }
        router.add(.GET, "/home") { request in .text(request.headers["Cookie"] ?? "") }
        let server = HTTPServer(configuration: .init(port: 0), router: router, logger: Logger(label: "test", level: .warning))
        try server.start()
        return server
    }

    @Test("A 303 comes back as it is, with its cookies, and nothing is stored or followed")
    func redirectsAndCookies() async throws {
        let server = try Self.cookieServer()
        defer { server.shutdown(timeout: .seconds(5)) }
        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)/")!)

        let login = try await client.send("POST", "/login", body: Data("user=ana".utf8))

        #expect(login.status == 303)
        #expect(login.header("location") == "/home")
        #expect(login.setCookies == ["session": "abc123", "csrf": "x-y-z"])
        #expect(try await client.get("/home").text == "", "no cookie is sent unless passed")
        #expect(try await client.get("/home", cookies: login.setCookies).text == "csrf=x-y-z; session=abc123")
    }

    @Test("A database URL parses back into the configuration it was written from")
    func databaseURLRoundTrip() throws {
        let configurations = [
            PostgresConfiguration(host: "127.0.0.1", port: 5433, user: "postgres", database: "t_1"),
            PostgresConfiguration(
                host: "localhost", port: 6000, user: "app user", password: "p@ss:w/rd?&=%", database: "field sync",
                unixSocketDirectory: "/tmp/run dir", parameters: ["sslmode": "disable", "application_name": "a&b"]),
        ]
        for configuration in configurations {
            #expect(try PostgresConfiguration(url: DatabaseURL.string(for: configuration)) == configuration)
        }
    }
}
