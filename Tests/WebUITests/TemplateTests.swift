import Foundation
import HTTP
import SyncEngine
import SyncProtocol
import Templating
import Testing

@testable import WebUI

/// The real `Templates/` and `Public/` folders, rendered without a server.
@Suite("Back-office templates")
struct TemplateTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func renderer() throws -> PageRenderer {
        PageRenderer(
            templates: try TemplateLibrary(directory: Self.root.appendingPathComponent("Templates")),
            files: try StaticFiles(directory: Self.root.appendingPathComponent("Public")),
            navigation: Navigation([.dashboard, .orders, .conflicts, .syncCentre, .teamRollup, .users, .settings]))
    }

    private func session(_ role: Role, username: String = "ana") -> WebSession {
        let user = UserAccount(id: "u-1", username: username, role: role, teamId: nil, suspended: false, createdAt: Date())
        return WebSession(id: "id", user: user, csrfToken: "token-123")
    }

    private func html(_ response: Response) -> String {
        guard case .bytes(let data) = response.body else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("Every page template parses and extends the layout")
    func allParse() throws {
        let library = try TemplateLibrary(directory: Self.root.appendingPathComponent("Templates"))
        for name in library.names where name.hasPrefix("pages/") {
            let source = try String(contentsOf: Self.root.appendingPathComponent("Templates/\(name).mustache"), encoding: .utf8)
            #expect(source.hasPrefix("{{<layout}}"), "\(name)")
        }
    }

    @Test("The navigation shows only what the role may open, and the sign-out form carries the CSRF token")
    func navigation() throws {
        let renderer = try renderer()
        let page = Page("pages/error", title: "t", area: .dashboard, session: session(.dispatcher), content: [:])
        let text = html(try renderer.render(page))
        #expect(text.contains(#"href="/admin" class="active""#))
        #expect(!text.contains(#"href="/admin/users""#))
        #expect(!text.contains(#"href="/admin/settings""#))
        #expect(text.contains(#"name="_csrf" value="token-123""#))
        let admin = html(try renderer.render(Page("pages/error", title: "t", area: nil, session: session(.admin), content: [:])))
        #expect(admin.contains(#"href="/admin/users""#) && admin.contains(#"href="/admin/settings""#))
    }

    @Test("Pages carry headers that keep them out of frames and caches")
    func headers() throws {
        let response = try renderer().error(404, session: nil)
        #expect(response.status == 404)
        #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["X-Frame-Options"] == "DENY")
    }

    @Test("Values are HTML-escaped wherever they appear")
    func escaping() throws {
        let hostile = #"<script>alert("x")</script>"#
        let content: [String: TemplateValue] = [
            "user": ["username": .string(hostile), "team": .string(hostile), "role": "Field", "path": "/admin/users/u-1"],
            "devices": [], "hasDevices": false,
        ]
        let text = html(try renderer().render(Page("pages/user", title: hostile, area: .users, session: session(.admin), content: content)))
        #expect(!text.contains("<script>alert"))
        #expect(text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
    }
}
