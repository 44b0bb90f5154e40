import Foundation
import Templating
import Testing

/// One test from the official Mustache spec files in `Fixtures/`.
struct SpecCase: Sendable, CustomTestStringConvertible {
    /// The spec file's name without `.json`, e.g. `~inheritance`.
    var file: String
    var name: String
    var template: String
    var data: TemplateValue
    var partials: [String: String]
    var expected: String

    var testDescription: String { "\(file): \(name)" }

    /// The spec modules this engine implements (all but the optional lambdas).
    static let files = ["comments", "delimiters", "interpolation", "inverted", "partials", "sections", "~inheritance"]

    /// Every case of every spec file, in file order. A file that fails to load
    /// contributes nothing, which `SpecTests` reports by counting.
    static let all: [SpecCase] = files.flatMap { (try? load($0)) ?? [] }

    private static func load(_ file: String) throws -> [SpecCase] {
        let url = try #require(Bundle.module.url(forResource: file, withExtension: "json", subdirectory: "Fixtures"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let tests = try #require(root["tests"] as? [[String: Any]])
        var seen: [String: Int] = [:]
        return try tests.map { test in
            let name = try #require(test["name"] as? String)
            // Two ~inheritance cases share a name; number repeats so each stays distinct.
            seen[name, default: 0] += 1
            return SpecCase(
                file: file,
                name: seen[name] == 1 ? name : "\(name) (\(seen[name] ?? 0))",
                template: try #require(test["template"] as? String),
                data: TemplateValue(json: test["data"] ?? NSNull()),
                partials: test["partials"] as? [String: String] ?? [:],
                expected: try #require(test["expected"] as? String)
            )
        }
    }
}

@Suite("Mustache specification")
struct SpecTests {
    @Test("every spec file loads with all of its cases")
    func specFilesLoad() {
        let counts = Dictionary(grouping: SpecCase.all, by: \.file).mapValues(\.count)
        #expect(
            counts == [
                "comments": 12, "delimiters": 14, "interpolation": 42, "inverted": 22, "partials": 12, "sections": 34, "~inheritance": 27,
            ]
        )
    }

    @Test("renders as the spec expects", arguments: SpecCase.all)
    func rendersAsSpecified(_ spec: SpecCase) throws {
        let partials = try TemplateLibrary(templates: spec.partials)
        let template = try Template(source: spec.template, name: spec.name)
        #expect(template.render(spec.data, partials: partials) == spec.expected)
    }
}
