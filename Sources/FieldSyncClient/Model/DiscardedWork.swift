public import SyncProtocol

/// What a forced sign-out threw away: every edit and photo that had not reached the server.
public struct DiscardedWork: Sendable, Hashable, CustomStringConvertible {
    /// One edit that never synced.
    public struct Change: Sendable, Hashable {
        public let collection: String
        public let recordId: String
        public let type: OpType
        public let values: [String: JSONValue]
    }

    public let changes: [Change]
    public let photos: [LocalPhoto]

    public var isEmpty: Bool { changes.isEmpty && photos.isEmpty }

    public var description: String {
        guard !isEmpty else { return "Nothing was lost." }
        let edits = changes.map { "\($0.type.rawValue) \($0.collection)/\($0.recordId)" }
        let files = photos.map { "photo \($0.id) of \($0.collection)/\($0.recordId)" }
        return "Discarded \(changes.count) unsynced \(changes.count == 1 ? "change" : "changes") and \(photos.count) "
            + "\(photos.count == 1 ? "photo" : "photos"): " + (edits + files).joined(separator: ", ")
    }
}
