import Templating
import Testing

@Suite("Syntax errors")
struct SyntaxErrorTests {
    /// A broken template and where and how it must be reported.
    struct Case: Sendable, CustomTestStringConvertible {
        var source: String
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { message }
    }

    static let cases: [Case] = [
        Case(source: "<ul>\n  {{#items}}\n<li>{{name}}</li>\n", line: 2, column: 3, message: "unclosed section 'items'"),
        Case(source: "{{^empty}}none", line: 1, column: 1, message: "unclosed inverted section 'empty'"),
        Case(source: "x\n{{<layout}}{{$content}}{{/content}}", line: 2, column: 1, message: "unclosed parent 'layout'"),
        Case(source: "{{$title}}Hi", line: 1, column: 1, message: "unclosed block 'title'"),
        Case(
            source: "{{#devices}}\n  {{#ops}}\n  {{/devices}}\n{{/ops}}",
            line: 3,
            column: 3,
            message: "closing tag 'devices' does not match open section 'ops' (line 2)"
        ),
        Case(source: "a\nb {{/items}}", line: 2, column: 3, message: "closing tag 'items' has no open section"),
        Case(source: "<p>\n  {{title</p>", line: 2, column: 3, message: "unclosed tag"),
        Case(source: "{{{html}}", line: 1, column: 1, message: "unclosed tag"),
        Case(source: "{{=<% %>=}}\n<% name", line: 2, column: 1, message: "unclosed tag"),
        Case(source: "ok\n{{=<%=}}", line: 2, column: 1, message: "invalid delimiters '<%'"),
        Case(source: "{{= a= b =}}", line: 1, column: 1, message: "invalid delimiters 'a= b'"),
        Case(source: "{{ }}", line: 1, column: 1, message: "empty tag"),
        Case(source: "{{first name}}", line: 1, column: 1, message: "invalid name 'first name'"),
        Case(source: "{{user..name}}", line: 1, column: 1, message: "invalid name 'user..name'"),
        Case(source: "Zoë → {{#x}}", line: 1, column: 7, message: "unclosed section 'x'"),
    ]

    @Test("reports the tag's line and column", arguments: cases)
    func reportsPosition(_ expected: Case) {
        let error = #expect(throws: TemplateError.self) { try Template(source: expected.source, name: "page.mustache") }
        #expect(error?.code == .syntax)
        #expect(error?.file == "page.mustache")
        #expect(error?.message == expected.message)
        #expect(error?.line == expected.line)
        #expect(error?.column == expected.column)
    }

    @Test("describes itself as file:line:column: message")
    func describesLikeACompiler() throws {
        let error = try #require(throws: TemplateError.self) { try Template(source: "\n\n  {{#a}}", name: "pages/list.mustache") }
        #expect(error.description == "pages/list.mustache:3:3: unclosed section 'a'")
    }
}
