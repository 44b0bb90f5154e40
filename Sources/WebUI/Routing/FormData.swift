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

    init(_ request: Request) {
        let type = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        let isForm = type == "application/x-www-form-urlencoded"
        self.init(encoded: isForm ? String(decoding: request.body, as: UTF8.self) : "")
    }

    /// Parses `a=1&b=two+words`; when a name repeats, the first value wins.
    init(encoded: String) {
        var fields: [String: String] = [:]
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty, fields[name] == nil else { continue }
            fields[name] = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
        }
        self.fields = fields
    }

    subscript(name: String) -> String? {
        fields[name]
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
