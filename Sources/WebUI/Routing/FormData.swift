import Foundation
import HTTP

/// The fields of an `application/x-www-form-urlencoded` body, as HTML forms send them.
///
/// ```swift
/// let form = FormData(request)
/// let name = form["username"] ?? ""
/// ```
/// Any other content type (or a malformed body) yields no fields, so checks that need
/// a field, like the CSRF token, fail closed.
struct FormData: Sendable {
    private let fields: [String: String]
    /// Every value of each name, in body order (undecodable values as "").
    private let lists: [String: [String]]

    init(_ request: Request) {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        let isForm = type == "application/x-www-form-urlencoded"
        self.init(encoded: isForm ? String(decoding: request.body, as: UTF8.self) : "")
    }

    /// Parses `a=1&b=two+words`; when a name repeats, the first value wins.
    init(encoded: String) {
        var fields: [String: String] = [:]
        var lists: [String: [String]] = [:]
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
            lists[name, default: []].append(value)
            if fields[name] == nil { fields[name] = value }
        }
        self.fields = fields
        self.lists = lists
    }

    subscript(name: String) -> String? {
        fields[name]
    }

    /// Every value sent under `name` (checkboxes sharing a name), in order; [] when none.
    func values(_ name: String) -> [String] {
        lists[name] ?? []
    }

    /// The field trimmed of surrounding white space; "" when absent.
    func trimmed(_ name: String) -> String {
        (fields[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether a checkbox named `name` was ticked (browsers send only ticked ones).
    func isChecked(_ name: String) -> Bool {
        fields[name] != nil
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
