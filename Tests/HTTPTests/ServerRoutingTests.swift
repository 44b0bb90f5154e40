import Foundation
import HTTP
import Support
import SyncAPI
import SyncProtocol
import Testing

@Suite("Serving over loopback")
struct ServerRoutingTests {
    private static func routes(_ router: Router) {
        router.add(.GET, "/v1/attachments/{attId}/chunks/{index}") { request in
            try .json([
                "attId": try request.parameter("attId"), "index": try request.parameter("index"),
                "query": request.query["q"] ?? "", "cookie": request.cookies["session"] ?? "",
                "remote": request.remoteAddress, "path": request.path,
            ])
        }
        router.add(.POST, "/echo") { request in Response(status: 201, body: .bytes(request.body)) }
        router.add(.GET, "/fail") { _ in throw APIError(.orderNotSubmitted, "No.", headers: ["Retry-After": "3"]) }
        router.add(.POST, "/decode") { request in
            try .json(request.decode([String: JSONValue].self))
        }
        router.add(.GET, "/crash") { _ in throw CocoaError(.fileReadCorruptFile) }
    }

    @Test("routes path parameters, decoded query, cookies and the client address")
    func routesParameters() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let response = try rawRequest(
            port: test.port, "GET", "/v1/attachments/att-55/chunks/7?q=a%20b&token=secret",
            headers: [("Cookie", "theme=dark; session=\"s1\"")])
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: String])
        #expect(
            object == [
                "attId": "att-55", "index": "7", "query": "a b", "cookie": "s1", "remote": "127.0.0.1", "path": "/v1/attachments/att-55/chunks/7",
            ])
        let encoded = try rawRequest(port: test.port, "GET", "/v1/attachments/att%3A55/chunks/7")
        let decoded = try #require(try JSONSerialization.jsonObject(with: encoded.body) as? [String: String])
        #expect(decoded["attId"] == "att:55")
        #expect(decoded["path"] == "/v1/attachments/att:55/chunks/7")
    }

    @Test("answers 404 NOT_FOUND and 405 METHOD_NOT_ALLOWED with Allow, as envelopes")
    func notFoundAndMethodNotAllowed() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let missing = try rawRequest(port: test.port, "GET", "/nowhere")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "NOT_FOUND")
        let wrongMethod = try rawRequest(port: test.port, "DELETE", "/echo")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.errorCode == "METHOD_NOT_ALLOWED")
        #expect(wrongMethod.headers["Allow"] == "POST")
    }

    @Test("serves HEAD from the GET route without a body")
    func head() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let get = try rawRequest(port: test.port, "GET", "/v1/attachments/a/chunks/1")
        let head = try rawRequest(port: test.port, "HEAD", "/v1/attachments/a/chunks/1")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == get.headers["Content-Length"])
    }

    @Test("echoes a body and keeps the connection alive between requests")
    func keepAlive() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let connection = try RawConnection(port: test.port)
        for round in 0..<3 {
            connection.sendRequest("POST", "/echo", body: Data("round \(round)".utf8))
            let response = try connection.readResponse()
            #expect(response.status == 201)
            #expect(response.text == "round \(round)")
        }
    }

    @Test("renders a thrown HTTPResponseError as its envelope with its headers")
    func thrownResponseError() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let response = try rawRequest(port: test.port, "GET", "/fail")
        #expect(response.status == 409)
        #expect(response.errorCode == "ORDER_NOT_SUBMITTED")
        #expect(response.error?["message"] as? String == "No.")
        #expect(response.error?["details"] as? [String: Any] != nil)
        #expect(response.headers["Retry-After"] == "3")
    }

    @Test("hides an unexpected error behind a generic 500 and logs it")
    func unknownError() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let response = try rawRequest(port: test.port, "GET", "/crash")
        #expect(response.status == 500)
        #expect(response.errorCode == "INTERNAL_ERROR")
        #expect(!response.text.contains("Cocoa"))
        #expect(test.log.captured.contains { $0.contains("handler failed") })
    }

    @Test("answers 400 MALFORMED_JSON for broken or too deeply nested bodies")
    func malformedJSON() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let broken = try rawRequest(port: test.port, "POST", "/decode", body: Data(#"{"a": [1, }"#.utf8))
        #expect(broken.status == 400)
        #expect(broken.errorCode == "MALFORMED_JSON")
        let deep = #"{"a": "# + String(repeating: "[", count: 65) + String(repeating: "]", count: 65) + "}"
        let tooDeep = try rawRequest(port: test.port, "POST", "/decode", body: Data(deep.utf8))
        #expect(tooDeep.status == 400)
        #expect(tooDeep.errorCode == "MALFORMED_JSON")
        let fine = try rawRequest(port: test.port, "POST", "/decode", body: Data(#"{"a": [[1]]}"#.utf8))
        #expect(fine.status == 200)
        #expect(fine.text == #"{"a":[[1]]}"#)
    }

    @Test("answers TRACE and QUERY, standard methods no route takes, 405 METHOD_NOT_ALLOWED with Allow, not 501", arguments: ["TRACE", "QUERY"])
    func standardMethodIsNotAllowed(method: String) throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let response = try rawRequest(port: test.port, method, "/echo")
        #expect(response.status == 405)
        #expect(response.errorCode == "METHOD_NOT_ALLOWED")
        #expect(response.headers["Allow"] == "POST")
    }

    @Test("answers an unknown method 501 NOT_IMPLEMENTED")
    func unknownMethod() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        let response = try rawRequest(port: test.port, "BREW", "/echo")
        #expect(response.status == 501)
        #expect(response.errorCode == "NOT_IMPLEMENTED")
    }

    @Test("writes one access-log line per request, without the query string")
    func accessLog() throws {
        let test = try LoopbackServer(routes: Self.routes)
        defer { test.stop() }
        _ = try rawRequest(port: test.port, "GET", "/v1/attachments/a/chunks/2?token=secret")
        let lines = test.log.captured.filter { $0.contains(": request ") }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.contains("http.method=GET"))
        #expect(line.contains("http.path=/v1/attachments/a/chunks/2 "))
        #expect(line.contains("http.status=200"))
        #expect(line.contains("duration.ms="))
        #expect(!line.contains("secret"))
    }
}
