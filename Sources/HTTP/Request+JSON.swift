public import Foundation

extension Request {
    /// Decodes the JSON body.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; RFC 3339 dates by default.
    /// - Throws: `HTTPFailure.malformedJSON` when the body is not JSON or nests deeper than
    ///   `maxJSONDepth`; `HTTPFailure.invalidField` naming the field when it is JSON but not a `T`.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = defaultJSONDecoder()) throws -> T {
        try decode(type, decoder: decoder) { _ in nil }
    }

    /// Decodes the JSON body with `quick`, a hand-written reader for a hot endpoint, falling back
    /// to `decode(_:decoder:)` (and its errors) whenever `quick` answers nil.
    /// - Throws: as `decode(_:decoder:)`; the depth limit applies to both readers.
    public func decode<T: Decodable>(
        _ type: T.Type, decoder: JSONDecoder = defaultJSONDecoder(), quickly quick: (Data) -> T?
    ) throws -> T {
        // The depth check runs first: a cheap byte scan that keeps a deeply nested body
        // from recursing through the decoder at all.
        if JSONDepth.exceeds(body, limit: maxJSONDepth) {
            throw HTTPFailure.malformedJSON(reason: "JSON nests deeper than \(maxJSONDepth) levels.")
        }
        if let value = quick(body) { return value }
        do {
            return try decoder.decode(type, from: body)
        } catch let error as DecodingError {
            throw Self.failure(for: error, body: body)
        }
    }

    /// The default decoder: RFC 3339 dates, as PROTOCOL.md requires.
    public static func defaultJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// JSONDecoder reports a syntax error as `dataCorrupted` at the root, just like a
    /// custom `init(from:)` rejecting the root value; only then is the body re-parsed to
    /// tell them apart (the error path only).
    static func failure(for error: DecodingError, body: Data) -> HTTPFailure {
        switch error {
        case .dataCorrupted(let context)
        where context.codingPath.isEmpty && (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) == nil:
            return .malformedJSON(reason: "The body is not valid JSON.")
        case .dataCorrupted(let context):
            return .invalidField(fieldPath(context.codingPath), message: context.debugDescription)
        case .keyNotFound(let key, let context):
            return .invalidField(fieldPath(context.codingPath + [key]), message: "A required field is missing.")
        case .valueNotFound(_, let context):
            return .invalidField(fieldPath(context.codingPath), message: "A required value is null.")
        case .typeMismatch(_, let context):
            return .invalidField(fieldPath(context.codingPath), message: "A field has the wrong type.")
        @unknown default:
            return .invalidField(nil, message: "The body does not match the expected shape.")
        }
    }

    /// `lines[0].qty` for the path lines → 0 → qty; nil for the root.
    static func fieldPath(_ codingPath: [any CodingKey]) -> String? {
        guard !codingPath.isEmpty else { return nil }
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }
}

/// Measures JSON nesting with a single pass over the bytes.
enum JSONDepth {
    /// Whether `data` opens more than `limit` nested arrays/objects at some point.
    /// Brackets inside strings (including escaped quotes) do not count.
    static func exceeds(_ data: Data, limit: Int) -> Bool {
        data.withUnsafeBytes { bytes in
            var depth = 0
            var exceeded = false
            JSONBrackets.walk(bytes) { _, opening in
                depth += opening ? 1 : -1
                exceeded = depth > limit
                return !exceeded
            }
            return exceeded
        }
    }
}
