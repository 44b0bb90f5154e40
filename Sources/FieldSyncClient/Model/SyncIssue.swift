public import SyncProtocol

/// Something the user must settle: an edit the server answered `conflict` or `rejected`
/// (it left the retry queue), or a photo the server refused. It carries what an app needs
/// to show it (PROTOCOL.md, push results).
///
/// ```swift
/// for issue in try await client.issues() {
///     print(issue.message)   // "Conflict on jobs/job-4471: status is on_hold on the server, you set complete."
///     try await client.resolve(issue, keeping: .server)
/// }
/// ```
public struct SyncIssue: Sendable, Hashable, Identifiable {
    /// Which side the user keeps.
    public enum Choice: Sendable, Hashable {
        /// Accept the server's state: the device's edit is dropped (a refused photo is given
        /// up, unless a queued edit still needs it).
        case server
        /// Send the device's values again, on top of the server's current state (a review-queue
        /// entry is settled in the device's favour); a refused photo is uploaded again.
        case device
    }

    /// The op id of the edit, or the photo's attachment id.
    public let id: String
    /// `.conflict` or `.rejected`.
    public let status: OpStatus
    /// Why, as the server said it (`FIELD_CONFLICT`, `REVIEW_REQUIRED`, `RECORD_DELETED`,
    /// `FILE_CHECKSUM_MISMATCH`, …).
    public let code: ErrorCode
    public let collection: String
    public let recordId: String
    /// The kind of edit; nil for a photo.
    public let type: OpType?
    /// The values the device wanted for each field it changed (empty for a delete).
    public let localValues: [String: JSONValue]
    /// The overlapping fields, with the device's and the server's values.
    public let conflicts: [FieldConflict]
    /// The field the server named (`VALIDATION_FAILED`, `UNKNOWN_FIELD`, `FIELD_READ_ONLY`).
    public let field: String?
    /// The review-queue entry (`REVIEW_REQUIRED`).
    public let conflictId: String?
    /// The server's own words, when it gave any.
    public let serverMessage: String?
    /// The refused photo, for a photo issue.
    public let photo: LocalPhoto?

    /// A sentence for the user; never a bare code.
    public var message: String { IssueWording.sentence(for: self) }

    init(op: PushOp, result: OpResult) {
        id = op.opId
        status = result.status
        code = result.code ?? (result.status == .conflict ? .fieldConflict : .validationFailed)
        collection = op.collection
        recordId = op.recordId
        type = op.type
        localValues = (op.fields ?? [:]).mapValues(\.new)
        conflicts = result.conflicts ?? []
        field = result.details?["field"]?.stringValue
        conflictId = result.conflictId
        serverMessage = result.message
        photo = nil
    }

    init(photo: LocalPhoto, code: ErrorCode) {
        id = photo.id
        status = .rejected
        self.code = code
        collection = photo.collection
        recordId = photo.recordId
        type = nil
        localValues = [:]
        conflicts = []
        field = nil
        conflictId = nil
        serverMessage = photo.problem
        self.photo = photo
    }
}
