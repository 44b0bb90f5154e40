import Foundation
import Templating
import Testing

@Suite("Rendering speed")
struct PerformanceTests {
    @Test("a layout page with a 50-row table renders well under a millisecond")
    func typicalPageIsFast() throws {
        let library = try TemplateLibrary(templates: [
            "layout": "<html>\n  <body>\n    {{$content}}{{/content}}\n  </body>\n</html>\n",
            "row":
                "<tr class=\"{{#online}}on{{/online}}{{^online}}off{{/online}}\"><td>{{name}}</td><td>{{battery}}</td><td>{{owner.email}}</td></tr>\n",
            "page":
                "{{<layout}}{{$content}}\n<h1>{{title}}</h1>\n<table>\n  {{#devices}}\n  {{>row}}\n  {{/devices}}\n</table>\n{{/content}}{{/layout}}",
        ])
        let devices: [TemplateValue] = (0..<50).map { index in
            [
                "name": .string("Device <\(index)>"), "battery": .double(Double(index) / 3), "online": .bool(index % 2 == 0),
                "owner": ["email": "ops@example.com"],
            ]
        }
        let context: TemplateValue = ["title": "Fleet", "devices": .array(devices)]
        let renders = 200
        let clock = ContinuousClock()
        var bytes = 0
        let elapsed = try clock.measure {
            for _ in 0..<renders { bytes += try library.render("page", context).utf8.count }
        }
        #expect(bytes > 0)
        #expect(elapsed / renders < Self.budget)
    }

    /// About ten times the measured cost (≈60 µs optimized, ≈500 µs unoptimized),
    /// leaving room for a loaded machine while still catching an accidental
    /// quadratic walk or per-render parsing.
    #if DEBUG
        static let budget = Duration.milliseconds(5)
    #else
        static let budget = Duration.microseconds(600)
    #endif
}
