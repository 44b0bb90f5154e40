import Foundation
import HTTP
import SyncEngine

/// The answer carrying a photo's bytes.
///
/// The bytes under an attachment id never change, so the SHA-256 is a strong ETag and
/// `If-None-Match` answers 304. The browser keeps its copy but asks again on every use
/// (`max-age=0, must-revalidate`, a 304 of no body when nothing changed): the back-office's
/// pages are never stored, and on a shared office computer a photo kept fresh for an hour
/// would reach whoever signs in next, even one whom the server refuses it. The cache stays
/// private (a shared cache must not hand one viewer's photo to another) and varies with the
/// session cookie.
enum PhotoResponse {
    static let cacheControl = "private, max-age=0, must-revalidate"

    /// Types a browser shows as an image; any other declared type is offered as a download.
    static let imageTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/avif"]

    static func isImage(_ contentType: String) -> Bool {
        imageTypes.contains(mediaType(contentType))
    }

    static func make(_ photo: StoredPhoto, sha256: String, file: BlobFile, request: Request) -> Response {
        let etag = "\"\(sha256)\""
        var headers: HTTPHeaders = [
            "ETag": etag, "Cache-Control": cacheControl, "Vary": "Cookie",
            // The type is the device's claim: never let a browser sniff it or run it as a page (the
            // browser's own viewer of an image opened alone needs its inline styles and the image).
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
        ]
        if request.ifNoneMatch(etag) {
            return Response(status: 304, headers: headers)
        }
        headers["Content-Type"] = photo.contentType
        if !isImage(photo.contentType) {
            headers["Content-Disposition"] = "attachment; filename=\"\(photo.id.uuidString.lowercased())\""
        }
        return Response(status: 200, headers: headers, body: .file(file.url, range: nil))
    }

    private static func mediaType(_ contentType: String) -> String {
        contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }
}
