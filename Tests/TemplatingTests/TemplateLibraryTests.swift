import Foundation
import Templating
import Testing

@Suite("Template library")
struct TemplateLibraryTests {
    /// A folder of templates in the temporary directory, removed when the test ends.
    final class TemplateFolder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("templating-\(UUID().uuidString)")

        init(_ files: [String: String]) throws {
            for (path, contents) in files {
                let file = url.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try contents.write(to: file, atomically: true, encoding: .utf8)
            }
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    struct DashboardView: Codable {
        struct Device: Codable {
            var name: String
            var pending: Int
        }

        var user: String
        var devices: [Device]
    }

    static let site: [String: String] = [
        "layout.mustache": """
        <html>
          <head><title>{{$title}}FieldSync{{/title}}</title></head>
          <body>
            {{$content}}
            {{/content}}
          </body>
        </html>

        """,
        "pages/dashboard.mustache": """
        {{<layout}}
        {{$title}}Dashboard · FieldSync{{/title}}
        {{$content}}
        <p>Signed in as {{user}}</p>
        <ul>
          {{#devices}}
          {{>partials/device}}
          {{/devices}}
        </ul>
        {{^devices}}
        <p>No devices yet.</p>
        {{/devices}}
        {{/content}}
        {{/layout}}

        """,
        "partials/device.mustache": "<li>{{name}} ({{pending}} pending)</li>\n",
        "README.txt": "not a template {{#",
    ]

    @Test("loads every .mustache file below the folder, named by relative path")
    func loadsRecursively() throws {
        let folder = try TemplateFolder(Self.site)
        let library = try TemplateLibrary(directory: folder.url)
        #expect(library.names == ["layout", "pages/dashboard", "partials/device"])
        #expect(library.template(named: "pages/dashboard")?.name == "pages/dashboard.mustache")
        #expect(library.template(named: "README") == nil)
    }

    @Test("a page fills its layout's blocks with a Codable view model")
    func rendersPageInLayout() throws {
        let folder = try TemplateFolder(Self.site)
        let library = try TemplateLibrary(directory: folder.url)
        let view = DashboardView(user: "ada@example.com", devices: [.init(name: "Pump <3>", pending: 2), .init(name: "Gate", pending: 0)])
        let html = try library.render("pages/dashboard", TemplateValue(view))
        #expect(
            html == """
                <html>
                  <head><title>Dashboard · FieldSync</title></head>
                  <body>
                    <p>Signed in as ada@example.com</p>
                    <ul>
                      <li>Pump &lt;3&gt; (2 pending)</li>
                      <li>Gate (0 pending)</li>
                    </ul>
                  </body>
                </html>

                """
        )
    }

    @Test("the layout's defaults show where the page overrides nothing")
    func layoutDefaults() throws {
        let library = try TemplateLibrary(templates: ["layout": "<title>{{$title}}FieldSync{{/title}}</title>", "bare": "{{<layout}}{{/layout}}"])
        #expect(try library.render("bare", [:]) == "<title>FieldSync</title>")
    }

    @Test("block content is re-indented to where the layout places it")
    func reindentsBlocks() throws {
        let library = try TemplateLibrary(templates: [
            "card": "<div>\n  {{$body}}\n  <p>empty</p>\n  {{/body}}\n</div>\n",
            "page": "{{<card}}\n        {{$body}}\n        <ul>\n          <li>one</li>\n        </ul>\n        {{/body}}\n{{/card}}\n",
        ])
        #expect(try library.render("card", [:]) == "<div>\n  <p>empty</p>\n</div>\n")
        #expect(try library.render("page", [:]) == "<div>\n  <ul>\n    <li>one</li>\n  </ul>\n</div>\n")
    }

    @Test("a syntax error in any file fails loading with its path, line and column")
    func reportsBrokenFile() throws {
        var files = Self.site
        files["pages/broken.mustache"] = "<ul>\n{{#devices}}\n  <li>{{name}}</li>\n{{/device}}\n"
        let folder = try TemplateFolder(files)
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: folder.url) }
        #expect(error?.description == "pages/broken.mustache:4:1: closing tag 'device' does not match open section 'devices' (line 2)")
    }

    @Test("rendering an unknown name throws")
    func unknownTemplate() throws {
        let library = try TemplateLibrary(templates: ["home": "hi"])
        let error = #expect(throws: TemplateError.self) { try library.render("pages/missing", [:]) }
        #expect(error?.code == .missingTemplate)
        #expect(error?.description == "pages/missing: no template with this name")
    }

    @Test("a folder that does not exist cannot be loaded")
    func missingFolder() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("templating-missing-\(UUID().uuidString)")
        let error = #expect(throws: TemplateError.self) { try TemplateLibrary(directory: url) }
        #expect(error?.code == .unreadable)
    }

    @Test("a template that includes itself stops instead of overflowing the stack")
    func selfInclusionTerminates() throws {
        let library = try TemplateLibrary(templates: ["loop": "x{{>loop}}"])
        #expect(try library.render("loop", [:]) == String(repeating: "x", count: 65))
    }
}
