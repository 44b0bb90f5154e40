import Foundation
import Support
import SyncAPI
import Testing

@testable import HTTP

@Suite("Routing in-process")
struct RouterTests {
    private struct Tag: Middleware {
        let name: String
        func respond(to request: Request, next: Handler) throws -> Response {
            var response = try next(request)
            response.headers.add(name: "X-Trace", value: name)
            return response
        }
    }

    private static func router(log: LogSink = .capturing()) -> Router {
        let router = Router(logger: Logger(label: "test", sink: log), failures: APIFailureRenderer())
        router.add(.GET, "/v1/attachments/{attId}/chunks/{index}") { request in
            .text("\(try request.parameter("attId")):\(try request.parameter("index"))")
        }
        router.add(.GET, "/v1/attachments/new") { _ in .text("literal") }
        router.add(.PUT, "/v1/attachments/{attId}") { request in .text("put \(try request.parameter("attId"))") }
        router.add(.GET, "/v1/attachments/{attId}") { request in .text("get \(try request.parameter("attId"))") }
        return router
    }

    private func text(_ response: Response) -> String {
        guard case .bytes(let data) = response.body else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("captures path parameters by name")
    func parameters() {
        let response = Self.router().respond(to: Request(method: .GET, path: "/v1/attachments/att-1/chunks/3"))
        #expect(response.status == 200)
        #expect(text(response) == "att-1:3")
    }

    @Test("prefers a literal segment over a parameter")
    func literalFirst() {
        let router = Self.router()
        #expect(text(router.respond(to: Request(method: .GET, path: "/v1/attachments/new"))) == "literal")
        #expect(text(router.respond(to: Request(method: .GET, path: "/v1/attachments/other"))) == "get other")
    }

    @Test("tells 404 NOT_FOUND from 405 METHOD_NOT_ALLOWED and lists allowed methods")
    func notFoundVersusNotAllowed() {
        let router = Self.router()
        let missing = router.respond(to: Request(method: .GET, path: "/v1/nothing"))
        #expect(missing.status == 404)
        let notAllowed = router.respond(to: Request(method: .DELETE, path: "/v1/attachments/a1"))
        #expect(notAllowed.status == 405)
        #expect(notAllowed.headers["Allow"] == "GET, HEAD, PUT")
        #expect(text(notAllowed).contains("METHOD_NOT_ALLOWED"))
    }

    @Test("serves HEAD with the GET handler")
    func headFallsBackToGet() {
        let response = Self.router().respond(to: Request(method: .HEAD, path: "/v1/attachments/a1"))
        #expect(response.status == 200)
        #expect(text(response) == "get a1")
    }

    @Test("runs middleware in order around handlers and around 404s")
    func middlewareOrder() {
        let router = Self.router()
        router.use(Tag(name: "outer"))
        router.use(Tag(name: "inner"))
        let found = router.respond(to: Request(method: .GET, path: "/v1/attachments/a1"))
        #expect(found.headers.values("X-Trace") == ["inner", "outer"])
        let missing = router.respond(to: Request(method: .GET, path: "/v1/nothing"))
        #expect(missing.status == 404)
    }

    @Test("turns an unexpected error into a logged generic 500")
    func genericInternalError() {
        let log = LogSink.capturing()
        let router = Self.router(log: log)
        router.add(.GET, "/boom") { _ in throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/secret/path"]) }
        let response = router.respond(to: Request(method: .GET, path: "/boom"))
        #expect(response.status == 500)
        #expect(text(response) == #"{"error":{"code":"INTERNAL_ERROR","details":{},"message":"Internal server error."}}"#)
        #expect(log.captured.count == 1)
    }

    @Test("lists every registered method and pattern in registration order")
    func listsRoutes() {
        let routes = Self.router().routes.map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(
            routes == [
                "GET /v1/attachments/{attId}/chunks/{index}", "GET /v1/attachments/new", "PUT /v1/attachments/{attId}",
                "GET /v1/attachments/{attId}",
            ])
    }

    @Test("answers 400 when a handler asks for a parameter its route lacks")
    func missingParameter() {
        let router = Router(failures: APIFailureRenderer())
        router.add(.GET, "/plain") { request in .text(try request.parameter("id")) }
        let response = router.respond(to: Request(method: .GET, path: "/plain"))
        #expect(response.status == 400)
        #expect(text(response).contains(#""field":"id""#))
    }
}

@Suite("Headers and cookies")
struct HeaderTests {
    @Test("matches names case-insensitively and keeps order and repeats")
    func headers() {
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Set-Cookie", "a=1")])
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values("SET-COOKIE") == ["a=1", "b=2"])
        headers["Set-Cookie"] = "c=3"
        #expect(headers.values("set-cookie") == ["c=3"])
        #expect(headers.map(\.name) == ["Content-Type", "Set-Cookie"])
        #expect(!HTTPHeaders.sameName("a^b", "a~b"))
    }

    @Test("parses cookies from every Cookie header, unquoting values")
    func cookies() {
        let request = Request(
            method: .GET, path: "/", headers: HTTPHeaders([("Cookie", "session=abc; theme=\"dark\""), ("Cookie", "session=later; lang=fr")]))
        #expect(request.cookies == ["session": "abc", "theme": "dark", "lang": "fr"])
    }
}
