import Foundation

extension ServerSettings {
    /// The keys whose canonical JSON differs between `old` and `new`, sorted by key: what a
    /// settings update stores and audits.
    public static func changes(from old: ServerSettings, to new: ServerSettings) throws -> [SettingChange] {
        let old = try keyedJSON(old)
        let new = try keyedJSON(new)
        // A key missing on one side is an optional that is unset there: JSON `null`.
        return Set(old.keys).union(new.keys).sorted().compactMap { key -> SettingChange? in
            old[key] == new[key] ? nil : SettingChange(key: key, old: old[key] ?? "null", new: new[key] ?? "null")
        }
    }

    /// Each set value as canonical JSON text, keyed by name (unset optionals are absent).
    static func keyedJSON(_ settings: ServerSettings) throws -> [String: String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(settings)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return try object.mapValues { value in
            String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]), as: UTF8.self)
        }
    }
}
