public import Foundation
public import SyncProtocol

/// The server's declaration of its collections: fields, types, write rules, precedence tables,
/// transitions, lock rules, conflict policy, schema version and payload migrations.
///
/// ```swift
/// let schema = try Schema.builtIn()
/// let jobs = schema.collections["jobs"]!
/// jobs.fields["status"]?.precedence  // ["cancelled", "on_hold", "complete", "in_progress"]
/// let config = ConfigResponse(minSupportedAppVersion: "2.0.0", serverSchemaVersion: schema.version,
///                             collections: schema.collectionsDocument())
/// ```
///
/// The JSON document has `version` (the `serverSchemaVersion`), `oldestSupportedVersion`
/// (default 1), `commonFields` (merged into every collection) and `collections` (name ->
/// ``CollectionSchema``).
public struct Schema: Sendable, Hashable {
    /// `serverSchemaVersion`.
    public let version: Int
    /// The oldest payload version that can still be migrated.
    public let oldestSupportedVersion: Int
    /// Collections by name; each already includes the common fields.
    public let collections: [String: CollectionSchema]

    /// Parses and checks a schema document.
    ///
    /// - Throws: ``SchemaError`` naming the collection and field at fault: malformed JSON, an
    ///   unknown type, a default that fails its own field, a precedence or transition value
    ///   outside the field's `enum`, a lock on an unknown field, a migration step out of range.
    public init(jsonData: Data) throws {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: jsonData)
        } catch let error as DecodingError {
            throw SchemaError(decoding: error)
        }
        let common = document.commonFields ?? [:]
        var collections: [String: CollectionSchema] = [:]
        for (name, declared) in document.collections {
            var collection = declared
            collection.fields = common.merging(declared.fields) { _, own in own }
            collections[name] = collection
        }
        self.version = document.version
        self.oldestSupportedVersion = document.oldestSupportedVersion ?? 1
        self.collections = collections
        try SchemaChecker(schema: self).check()
    }

    /// The built-in field-operations schema of PROTOCOL.md (`Resources/schema.json`).
    ///
    /// - Throws: ``SchemaError`` if the bundled resource is missing or invalid.
    public static func builtIn() throws -> Schema {
        guard let url = Bundle.module.url(forResource: "schema", withExtension: "json") else {
            throw SchemaError(collection: nil, field: nil, reason: "the bundled schema.json is missing")
        }
        return try Schema(jsonData: try Data(contentsOf: url))
    }

    /// The value of `collections` in `GET /v1/config`: every collection with its merged fields.
    public func collectionsDocument() -> JSONValue {
        // Encoding plain Codable structs into a JSON tree cannot fail.
        (try? JSONValue(encoding: collections)) ?? .object([:])
    }

    /// Rewrites an op's fields written against schema `version` into the current version.
    ///
    /// - Returns: the migrated fields, or `nil` when no path exists (rule 5, `SCHEMA_UNSUPPORTED`):
    ///   the version is newer than the server's, older than ``oldestSupportedVersion``, or older
    ///   than the collection itself.
    public func migrate(
        _ fields: [String: FieldChange], type: OpType, collection name: String, from version: Int
    ) -> [String: FieldChange]? {
        guard let collection = collections[name], version >= max(oldestSupportedVersion, collection.since),
            let steps = steps(of: collection, from: version)
        else { return nil }
        var migrated = fields
        for step in steps {
            step.apply(
                to: &migrated, complete: type == .create, make: { FieldChange(new: $0) },
                map: { change, rewrite in FieldChange(old: change.old.map(rewrite), new: rewrite(change.new)) })
        }
        return migrated
    }

    /// The declared steps from `version` to the current one, in order; nil for a version newer than the server's.
    func steps(of collection: CollectionSchema, from version: Int) -> [MigrationStep]? {
        guard version <= self.version else { return nil }
        return collection.migrations.sorted(by: { $0.from < $1.from }).filter { $0.from >= version }
    }

    private struct Document: Decodable {
        var version: Int
        var oldestSupportedVersion: Int?
        var commonFields: [String: FieldSpec]?
        var collections: [String: CollectionSchema]
    }
}

/// A schema document that cannot be used, naming where the problem is.
public struct SchemaError: Error, Hashable, CustomStringConvertible {
    public var collection: String?
    /// The field, with nested object properties joined by dots (`lines.qty`).
    public var field: String?
    public var reason: String

    public init(collection: String?, field: String?, reason: String) {
        self.collection = collection
        self.field = field
        self.reason = reason
    }

    /// Locates a decoding failure from its coding path (`collections.<c>.fields.<f>…`).
    init(decoding error: DecodingError) {
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                (context.codingPath, context.debugDescription)
            case .keyNotFound(let key, let context):
                (context.codingPath, "missing key \"\(key.stringValue)\"")
            @unknown default:
                ([], "\(error)")
            }
        let names = path.map(\.stringValue)
        let collection = names.count > 1 && names[0] == "collections" ? names[1] : nil
        self.init(collection: collection, field: Self.fieldPath(names), reason: reason)
    }

    /// `collections.orders.fields.lines.items.properties.qty.type` -> `lines.qty`.
    private static func fieldPath(_ names: [String]) -> String? {
        guard let start = names.firstIndex(where: { $0 == "fields" || $0 == "commonFields" }), start + 1 < names.count
        else { return nil }
        var parts = [names[start + 1]]
        var index = start + 2
        while index + 1 < names.count {
            if names[index] == "properties" { parts.append(names[index + 1]) }
            index += 1
        }
        return parts.joined(separator: ".")
    }

    public var description: String {
        let location = [collection.map { "collection \($0)" }, field.map { "field \($0)" }].compactMap { $0 }
        return location.isEmpty ? "schema: \(reason)" : "schema (\(location.joined(separator: ", "))): \(reason)"
    }
}
