import Cryptography
public import Foundation
public import HTTP

/// The files of `Public/`, read once at start and served at `/static/<name>`.
///
/// Only files present at start are served, each on a route of its own, so no request
/// path can reach outside the folder. Pages link to `url(for:)`, which carries a hash
/// of the content: such a URL is cached for a year, since new content means a new URL;
/// any other request for the file is cached for five minutes.
///
/// ```swift
/// let files = try StaticFiles(directory: resources.appending(path: "Public"))
/// files.url(for: "app.css")   // "/static/app.css?v=3f2a9c1b7d0e"
/// ```
public final class StaticFiles: Sendable {
    struct File: Sendable {
        let bytes: Data
        let contentType: String
        /// The first 12 hex digits of the content's SHA-256.
        let version: String
    }

    static let prefix = "/static/"
    private let files: [String: File]

    /// Reads every servable file below `directory`.
    ///
    /// Files with an unknown extension, hidden files, and names with characters other
    /// than letters, digits, `.`, `_`, `-` and `/` are left out.
    /// - Throws: when the folder or a file cannot be read.
    public init(directory: URL) throws {
        var files: [String: File] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted() {
            guard Self.isServable(name), let type = Self.contentType(of: name) else { continue }
            let url = directory.appendingPathComponent(name)
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let bytes = try Data(contentsOf: url)
            files[name] = File(bytes: bytes, contentType: type, version: String(SHA256.hash(bytes).hexString.prefix(12)))
        }
        self.files = files
    }

    /// The names of the files served, sorted.
    public var names: [String] { files.keys.sorted() }

    /// The versioned URL of a file, e.g. `/static/app.css?v=3f2a9c1b7d0e`.
    public func url(for name: String) -> String {
        guard let file = files[name] else { return Self.prefix + name }
        return Self.prefix + name + "?v=" + file.version
    }

    /// Adds a GET route for each file.
    public func register(on router: Router) {
        for name in names {
            router.add(.GET, Self.prefix + name) { [self] request in self.response(for: name, request: request) }
        }
    }

    func response(for name: String, request: Request) -> Response {
        guard let file = files[name] else { return .text("Not found", status: 404) }
        let etag = "\"\(file.version)\""
        var headers: HTTPHeaders = [
            "Content-Type": file.contentType, "ETag": etag, "X-Content-Type-Options": "nosniff",
            "Cache-Control": request.query["v"] == file.version ? "public, max-age=31536000, immutable" : "public, max-age=300",
        ]
        if request.headers["If-None-Match"]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) == true {
            headers["Content-Type"] = nil
            return Response(status: 304, headers: headers)
        }
        return Response(status: 200, headers: headers, body: .bytes(file.bytes))
    }

    static func isServable(_ name: String) -> Bool {
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-/".unicodeScalars.contains($0)) }
        return allowed && !name.split(separator: "/").contains { $0.hasPrefix(".") }
    }

    private static let contentTypes = [
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
        "png": "image/png", "ico": "image/x-icon", "woff2": "font/woff2", "txt": "text/plain; charset=utf-8",
        "json": "application/json",
    ]

    static func contentType(of name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        return contentTypes[name[name.index(after: dot)...].lowercased()]
    }
}
