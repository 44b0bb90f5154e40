import Foundation
public import SyncProtocol

/// Why a value does not fit its field; `path` locates it inside nested values (`lines[0].qty`).
public struct ValueProblem: Sendable, Hashable {
    public var path: String
    public var reason: String
}

extension FieldSpec {
    /// Checks `value` against this spec; `null` is accepted only when `allowNull` (an optional field being cleared).
    ///
    /// - Parameter path: the field's name, used as the prefix of the problem's path.
    /// - Returns: the first problem found, or `nil` when the value fits.
    public func problem(with value: JSONValue, path: String, allowNull: Bool) -> ValueProblem? {
        if value.isNull {
            return allowNull ? nil : ValueProblem(path: path, reason: "must not be null")
        }
        if let reason = typeProblem(value) { return ValueProblem(path: path, reason: reason) }
        if let values, let text = value.stringValue, !values.contains(text) {
            return ValueProblem(path: path, reason: "must be one of \(values.joined(separator: ", "))")
        }
        switch (type, value) {
        case (.array(let items?), .array(let elements)):
            for (index, element) in elements.enumerated() {
                if let problem = items.problem(with: element, path: "\(path)[\(index)]", allowNull: false) { return problem }
            }
        case (.object(let properties?), .object(let members)):
            return Self.shapeProblem(members, properties: properties, path: path)
        default:
            break
        }
        return nil
    }

    /// The type and bound checks of a non-null value.
    private func typeProblem(_ value: JSONValue) -> String? {
        switch (type, value) {
        case (.string, .string), (.boolean, .bool), (.object, .object):
            return nil
        case (.integer, _) where value.intValue != nil, (.number, .int), (.number, .double):
            return value.doubleValue.flatMap { number in minimum.flatMap { number < $0 ? "must be at least \(Self.show($0))" : nil } }
        case (.date, .string(let text)):
            return Self.isDate(text) ? nil : "must be a date (YYYY-MM-DD) or an RFC 3339 timestamp"
        case (.attachment, .string(let text)):
            return DeviceIdentifier.isValid(text) ? nil : "must be an attachment id"
        case (.array, .array(let elements)):
            return minimum.flatMap { Double(elements.count) < $0 ? "must have at least \(Self.show($0)) items" : nil }
        default:
            return "must be of type \(type.name)"
        }
    }

    private static func shapeProblem(_ members: [String: JSONValue], properties: [String: FieldSpec], path: String) -> ValueProblem? {
        for name in members.keys.sorted() where properties[name] == nil {
            return ValueProblem(path: "\(path).\(name)", reason: "is not a known property")
        }
        for (name, spec) in properties.sorted(by: { $0.key < $1.key }) {
            guard let member = members[name] else {
                if spec.required { return ValueProblem(path: "\(path).\(name)", reason: "is required") }
                continue
            }
            if let problem = spec.problem(with: member, path: "\(path).\(name)", allowNull: !spec.required) { return problem }
        }
        return nil
    }

    private static func isDate(_ text: String) -> Bool {
        RFC3339.date(from: text) != nil || CalendarDay.isValid(text)
    }

    private static func show(_ number: Double) -> String {
        Int64(exactly: number).map(String.init) ?? String(number)
    }
}
