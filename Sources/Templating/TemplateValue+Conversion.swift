import Foundation

extension TemplateValue {
    /// Converts a Codable view model into a template context.
    ///
    /// The value goes through `JSONEncoder` (dates as ISO 8601 strings), so the
    /// template sees exactly the keys the type's `Encodable` conformance writes.
    ///
    /// - Parameter encodable: The view model.
    /// - Throws: `EncodingError` when the model cannot be encoded.
    public init(_ encodable: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(encodable)
        self.init(json: try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
    }

    /// Converts the result of `JSONSerialization` (or any tree of strings,
    /// numbers, booleans, arrays, dictionaries and `NSNull`) into a value.
    ///
    /// Anything else becomes `.null`.
    ///
    /// - Parameter json: The object to convert.
    public init(json: Any) {
        switch json {
        case let value as TemplateValue: self = value
        case let text as String: self = .string(text)
        case let items as [Any]: self = .array(items.map(TemplateValue.init(json:)))
        case let entries as [String: Any]: self = .dictionary(entries.mapValues(TemplateValue.init(json:)))
        default: self = Self.scalar(json) ?? .null
        }
    }

    /// Classifies a number or boolean by its storage type.
    ///
    /// `as? Bool` cannot be used directly: Foundation bridges any `NSNumber`
    /// holding 0 or 1 to `Bool`, which would turn the integer `1` into `true`.
    private static func scalar(_ json: Any) -> TemplateValue? {
        switch json {
        case let value as Bool where type(of: json) == Bool.self: return .bool(value)
        case let value as Int where type(of: json) == Int.self: return .int(value)
        case let value as Double where type(of: json) == Double.self: return .double(value)
        case let number as NSNumber: return classify(number)
        default: return nil
        }
    }

    private static func classify(_ number: NSNumber) -> TemplateValue {
        // The Objective-C type encoding tells a JSON boolean ("c") from an
        // integer ("i", "q", …) and a floating-point number ("f", "d").
        switch String(cString: number.objCType) {
        case "c", "B": .bool(number.boolValue)
        case "f", "d": .double(number.doubleValue)
        default: .int(number.intValue)
        }
    }
}
