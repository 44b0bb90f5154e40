import Templating
import Testing

@Suite("HTML escaping")
struct EscapingTests {
    private func render(_ source: String, _ context: TemplateValue) throws -> String {
        try Template(source: source).render(context, partials: TemplateLibrary(templates: [:]))
    }

    @Test("a script injected through a variable comes out inert")
    func escapesScript() throws {
        let html = try render("<p>{{comment}}</p>", ["comment": "<script>alert('owned')</script>"])
        #expect(html == "<p>&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;</p>")
    }

    @Test("quotes cannot break out of an attribute value")
    func escapesQuotes() throws {
        let html = try render(#"<a title="{{title}}" data-x='{{title}}'>"#, ["title": #"" onclick="steal()" x='"#])
        #expect(html == #"<a title="&quot; onclick=&quot;steal()&quot; x=&#39;" data-x='&quot; onclick=&quot;steal()&quot; x=&#39;'>"#)
    }

    @Test("ampersands are escaped once, not re-escaped")
    func escapesAmpersandOnce() throws {
        #expect(try render("{{v}}", ["v": "Tom &amp; Jerry & co"]) == "Tom &amp;amp; Jerry &amp; co")
    }

    @Test("triple mustache and ampersand tags insert raw HTML")
    func rawTagsDoNotEscape() throws {
        let context: TemplateValue = ["html": "<b>bold</b>"]
        #expect(try render("{{{html}}}|{{&html}}|{{html}}", context) == "<b>bold</b>|<b>bold</b>|&lt;b&gt;bold&lt;/b&gt;")
    }

    @Test("non-ASCII text passes through around escaped characters")
    func keepsUnicode() throws {
        #expect(try render("{{name}}", ["name": "Zoë & 日本 <🚀>"]) == "Zoë &amp; 日本 &lt;🚀&gt;")
    }

    @Test("interpolated data is never parsed as a template")
    func dataIsNotReinterpolated() throws {
        #expect(try render("{{a}}", ["a": "{{b}}", "b": "no"]) == "{{b}}")
    }
}
