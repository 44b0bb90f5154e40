import Foundation
import HTTP

/// The back-office's cookies and their attributes.
///
/// Every cookie is `HttpOnly` (scripts never need it), `SameSite=Lax` (not sent on
/// cross-site form posts) and `Path=/`; `Secure` when the browser reached us over TLS,
/// which behind a TLS-terminating proxy is told by `X-Forwarded-Proto: https`. They
/// carry no `Max-Age`: they end with the browser, and the server ends sessions sooner.
enum Cookies {
    /// The session id.
    static let session = "fieldsync_session"
    /// The nonce the sign-in form's CSRF token is bound to, before any session exists.
    static let loginNonce = "fieldsync_login"

    /// A `Set-Cookie` value that stores `value` under `name`.
    static func set(_ name: String, _ value: String, for request: Request) -> String {
        "\(name)=\(value)\(attributes(for: request))"
    }

    /// A `Set-Cookie` value that deletes the cookie `name`.
    static func clear(_ name: String, for request: Request) -> String {
        "\(name)=\(attributes(for: request)); Max-Age=0"
    }

    /// Whether the browser's connection was TLS, as far as this server can tell.
    static func cameOverTLS(_ request: Request) -> Bool {
        // A proxy chain may append values ("https, http"): the first is the client's hop.
        let first = request.headers["X-Forwarded-Proto"]?.split(separator: ",").first
        return first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    private static func attributes(for request: Request) -> String {
        "; Path=/; HttpOnly; SameSite=Lax" + (cameOverTLS(request) ? "; Secure" : "")
    }
}
