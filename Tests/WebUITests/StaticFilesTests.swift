import Foundation
import HTTP
import Testing

@testable import WebUI

@Suite("Static files")
struct StaticFilesTests {
    /// A throwaway `Public/` folder with servable and unservable files.
    private func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-public-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("img"), withIntermediateDirectories: true)
        try Data("body{}".utf8).write(to: root.appendingPathComponent("app.css"))
        try Data("<svg/>".utf8).write(to: root.appendingPathComponent("img/logo.svg"))
        try Data("secret".utf8).write(to: root.appendingPathComponent(".env.json"))
        try Data("x".utf8).write(to: root.appendingPathComponent("notes.md"))
        try Data("x".utf8).write(to: root.appendingPathComponent("bad name.css"))
        return root
    }

    @Test("Only known types with safe names are served; hidden files never")
    func whitelist() throws {
        let files = try StaticFiles(directory: try folder())
        #expect(files.names == ["app.css", "img/logo.svg"])
    }

    @Test("Each file gets its own route; other paths, including traversal attempts, do not match")
    func routes() throws {
        let router = Router()
        try StaticFiles(directory: try folder()).register(on: router)
        let css = router.respond(to: Request(method: .GET, path: "/static/app.css"))
        #expect(css.status == 200)
        #expect(css.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(css.headers["X-Content-Type-Options"] == "nosniff")
        #expect(router.respond(to: Request(method: .GET, path: "/static/img/logo.svg")).headers["Content-Type"] == "image/svg+xml")
        for path in ["/static/../Package.swift", "/static/.env.json", "/static/notes.md", "/static/img/../app.css", "/static/"] {
            #expect(router.respond(to: Request(method: .GET, path: path)).status == 404, "\(path)")
        }
    }

    @Test("Versioned URLs are cached for a year, others briefly; a matching ETag answers 304")
    func caching() throws {
        let files = try StaticFiles(directory: try folder())
        let url = files.url(for: "app.css")
        let version = String(url.split(separator: "=").last ?? "")
        #expect(url.hasPrefix("/static/app.css?v=") && version.count == 12)
        let pinned = files.response(for: "app.css", request: Request(method: .GET, path: "/static/app.css", query: ["v": version]))
        #expect(pinned.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        let plain = files.response(for: "app.css", request: Request(method: .GET, path: "/static/app.css"))
        #expect(plain.headers["Cache-Control"] == "public, max-age=300")
        let etag = try #require(plain.headers["ETag"])
        let revalidated = files.response(for: "app.css", request: Request(method: .GET, path: "/static/app.css", headers: ["If-None-Match": etag]))
        #expect(revalidated.status == 304)
    }
}
