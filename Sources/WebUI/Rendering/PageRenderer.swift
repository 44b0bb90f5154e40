import Foundation
import HTTP
import SyncEngine
import Templating

/// Turns a `Page` into an HTML response: the page's template inside the layout, with
/// navigation for the viewer's role and the headers every back-office page carries.
final class PageRenderer: Sendable {
    private let templates: TemplateLibrary
    private let files: StaticFiles
    /// The areas whose pages exist, in navigation order.
    private let navigation: Navigation

    init(templates: TemplateLibrary, files: StaticFiles, navigation: Navigation) {
        self.templates = templates
        self.files = files
        self.navigation = navigation
    }

    /// Whether the area has pages a navigation link may lead to.
    func isAvailable(_ area: Area) -> Bool {
        navigation.contains(area)
    }

    /// Renders `page`.
    /// - Throws: `TemplateError` when the page's template does not exist.
    func render(_ page: Page) throws -> Response {
        var values = page.content
        values["pageTitle"] = .string(page.title)
        values["stylesheet"] = .string(files.url(for: "app.css"))
        values["script"] = .string(files.url(for: "app.js"))
        values["favicon"] = .string(files.url(for: "favicon.svg"))
        values["notice"] = page.notice?.templateValue ?? .null
        if let session = page.session {
            values["viewer"] = [
                "username": .string(session.user.username), "role": .string(Formatting.roleName(session.user.role)),
                "csrfToken": .string(session.csrfToken),
                "searchPath": isAvailable(.search) && AccessPolicy.permits(session.user.role, .view, in: .search) ? .string(Area.search.path) : .null,
            ]
            values["nav"] = .array(
                AccessPolicy.areas(for: session.user.role, among: navigation.all).map { area in
                    ["title": .string(area.title), "path": .string(area.path), "current": .bool(area == page.area)]
                })
        }
        var response = Response.html(try templates.render(page.template, .dictionary(values)), status: page.status)
        Self.applySecurityHeaders(to: &response)
        return response
    }

    /// The error page for `status`, with the viewer's navigation when signed in.
    func error(_ status: Int, session: WebSession?, message: String? = nil) throws -> Response {
        let text = ErrorText(status: status)
        let content: [String: TemplateValue] = [
            "status": .int(status), "heading": .string(text.heading), "message": .string(message ?? text.message),
            "homePath": .string(session == nil ? "/login" : SafeRedirect.home),
            "homeLabel": .string(session == nil ? "Go to sign-in" : "Back to the dashboard"),
        ]
        return try render(Page("pages/error", title: text.heading, area: nil, session: session, content: content, status: status))
    }

    /// Headers that keep pages out of frames, caches and foreign scripts.
    static func applySecurityHeaders(to response: inout Response) {
        response.headers["Content-Security-Policy"] =
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        // Pages show user data: never keep them in shared or back-button caches.
        response.headers["Cache-Control"] = "no-store"
    }
}

/// The heading and explanation of an error page.
struct ErrorText {
    let heading: String
    let message: String

    init(status: Int) {
        switch status {
        case 400:
            (heading, message) = ("This link doesn't work", "The address is incomplete or damaged. Go back and follow the page's own links.")
        case 403:
            (heading, message) = (
                "You don't have access to this page", "Your role does not include this part of the back-office. Ask an administrator if you need it."
            )
        case 404:
            (heading, message) = ("Page not found", "There is nothing at this address. It may have been moved, or the link may be mistyped.")
        case 413:
            (heading, message) = ("Too much at once", "This request asks for more than one page may do at once. Nothing was changed.")
        case 422:
            (heading, message) = ("This can't be done as sent", "The form's values cannot be used. Nothing was changed.")
        case 405:
            (heading, message) = (
                "This page can't do that", "The page exists, but not for this kind of request. Go back and use the page's own buttons."
            )
        default:
            (heading, message) = (
                "Something went wrong",
                "The server could not finish this request. Please try again in a moment; if it keeps happening, tell your administrator."
            )
        }
    }
}
