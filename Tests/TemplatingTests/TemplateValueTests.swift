import Foundation
import Templating
import Testing

@Suite("Template values")
struct TemplateValueTests {
    struct DeviceRow: Codable {
        var id: Int
        var name: String
        var battery: Double
        var online: Bool
        var note: String?
    }

    struct DashboardView: Codable {
        var title: String
        var devices: [DeviceRow]
        var seenAt: Date
    }

    @Test("a Codable view model becomes a dictionary tree")
    func convertsEncodable() throws {
        let view = DashboardView(
            title: "Fleet",
            devices: [DeviceRow(id: 7, name: "Pump", battery: 0.5, online: true, note: nil)],
            seenAt: Date(timeIntervalSince1970: 0)
        )
        let value = try TemplateValue(view)
        #expect(
            value == [
                "title": "Fleet",
                "devices": [["id": 7, "name": "Pump", "battery": 0.5, "online": true]],
                "seenAt": "1970-01-01T00:00:00Z",
            ]
        )
    }

    @Test("a rendered view model shows every field")
    func rendersEncodable() throws {
        let view = DashboardView(
            title: "Fleet <east>",
            devices: [
                DeviceRow(id: 1, name: "Pump", battery: 0.75, online: true, note: "check seal"),
                DeviceRow(id: 2, name: "Gate", battery: 1, online: false, note: nil),
            ],
            seenAt: Date(timeIntervalSince1970: 86_400)
        )
        let template = try Template(
            source: """
                <h1>{{title}}</h1>
                {{#devices}}
                <li id="d{{id}}">{{name}} {{battery}}{{#online}} online{{/online}}{{^online}} offline{{/online}}{{#note}} ({{.}}){{/note}}</li>
                {{/devices}}
                <footer>{{seenAt}}</footer>
                """
        )
        let html = template.render(try TemplateValue(view), partials: try TemplateLibrary(templates: [:]))
        #expect(
            html == """
                <h1>Fleet &lt;east&gt;</h1>
                <li id="d1">Pump 0.75 online (check seal)</li>
                <li id="d2">Gate 1 offline</li>
                <footer>1970-01-02T00:00:00Z</footer>
                """
        )
    }

    @Test("JSON numbers keep their kind: 1 is not true, 1.5 is not 1")
    func classifiesJSONNumbers() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"{"one":1,"zero":0,"yes":true,"no":false,"half":1.5,"nothing":null}"#.utf8))
        #expect(TemplateValue(json: json) == ["one": 1, "zero": 0, "yes": true, "no": false, "half": 1.5, "nothing": nil])
    }

    @Test("native Swift values convert without JSON")
    func convertsNativeValues() {
        #expect(TemplateValue(json: 1) == .int(1))
        #expect(TemplateValue(json: true) == .bool(true))
        #expect(TemplateValue(json: 2.5) == .double(2.5))
        #expect(TemplateValue(json: [1, "a"] as [Any]) == [1, "a"])
        #expect(TemplateValue(json: ["nested": ["x": TemplateValue.string("y")]]) == ["nested": ["x": "y"]])
        #expect(TemplateValue(json: Date()) == .null)
    }

    @Test("numbers interpolate as integers or shortest decimals")
    func formatsNumbers() {
        #expect(TemplateValue.int(-42).interpolatedText == "-42")
        #expect(TemplateValue.double(1.21).interpolatedText == "1.21")
        #expect(TemplateValue.double(2.0).interpolatedText == "2")
        #expect(TemplateValue.double(1e300).interpolatedText == "1e+300")
    }

    @Test("null, false, empty lists and empty strings are falsey; zero is not")
    func truthiness() {
        let falsey: [TemplateValue] = [nil, false, [], ""]
        let truthy: [TemplateValue] = [0, 0.0, true, "0", [nil], [:]]
        #expect(falsey.allSatisfy { !$0.isTruthy })
        #expect(truthy.allSatisfy { $0.isTruthy })
    }
}
