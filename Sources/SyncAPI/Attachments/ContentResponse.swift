import Foundation
import HTTP
import SyncEngine
import SyncProtocol

/// The download answer for a finished attachment: the blob file, whole or one byte range.
///
/// The bytes under an attId never change, so the SHA-256 is a strong ETag: `If-None-Match`
/// answers 304 and `If-Range` keeps a resumed download consistent.
enum ContentResponse {
    static func make(for content: AttachmentContent, request: Request) -> Response {
        let etag = "\"\(content.sha256)\""
        var headers: HTTPHeaders = [
            "ETag": etag, "Accept-Ranges": "bytes", "Cache-Control": "private, max-age=31536000, immutable",
            // The type is the device's claim: never let a browser sniff or run it as a page.
            "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox; default-src 'none'",
        ]
        if request.ifNoneMatch(etag) {
            return Response(status: 304, headers: headers)
        }
        headers["Content-Type"] = content.contentType
        let size = content.file.size
        let rangeApplies = request.headers["if-range"].map { $0 == etag } ?? true
        switch rangeApplies ? ByteRangeRequest(header: request.headers["range"], size: size) : .whole {
        case .whole:
            return Response(status: 200, headers: headers, body: .file(content.file.url, range: nil))
        case .partial(let range):
            headers["Content-Range"] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
            return Response(status: 206, headers: headers, body: .file(content.file.url, range: range))
        case .unsatisfiable:
            return APIError(
                .rangeNotSatisfiable, "The range starts beyond the end of the file.", details: ["size": .int(size)],
                headers: ["Content-Range": "bytes */\(size)", "ETag": etag]
            ).response()
        }
    }

}

/// What a `Range` header asks of a representation of `size` bytes (RFC 9110 §14.1.2).
///
/// One range is served: `first-last`, `first-` or `-suffix`. A header that is absent, not
/// `bytes=`, malformed, or lists several ranges is ignored (the whole file is sent, which the
/// RFC allows); a well-formed range starting past the end is unsatisfiable (416).
enum ByteRangeRequest: Equatable {
    case whole
    case partial(Range<Int64>)
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        guard let first = Self.number(firstText) else {
            // `-suffix`: the last `suffix` bytes.
            guard firstText.isEmpty, let suffix = Self.number(lastText) else {
                self = .whole
                return
            }
            self = suffix == 0 ? .unsatisfiable : .partial(max(0, size - suffix)..<size)
            return
        }
        // `first-` runs to the end; `first-last` with last < first is malformed.
        let last = lastText.isEmpty ? Int64.max : Self.number(lastText)
        guard let last, last >= first else {
            self = .whole
            return
        }
        self = first >= size ? .unsatisfiable : .partial(first..<min(last, size - 1) + 1)
    }

    /// A non-negative decimal of at most 18 digits (so it fits an Int64), else nil.
    private static func number(_ text: Substring) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
