/// Why an attachment call was refused. SyncAPI maps each case to its status and code.
public enum AttachmentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field of the request is malformed or inconsistent (400 `VALIDATION_FAILED`).
    case invalid(field: String, message: String)
    /// No session with this attId on the caller's device (404; another device's session
    /// answers the same, so its existence is not revealed).
    case sessionNotFound
    /// The session saw no activity for `uploadSessionHours`; registering again starts over (410).
    case sessionExpired
    /// The file or the record's attachments together exceed a limit (413 `ATTACHMENT_TOO_LARGE`).
    case tooLarge(limit: Int64, perRecord: Bool)
    /// The device already has this many open sessions (429).
    case tooManySessions(limit: Int, perUser: Bool)
    /// The attId is already registered with a different `field` (409).
    case declarationMismatch(field: String)
    /// The record exists and the caller cannot see it (403 `OUT_OF_SCOPE`).
    case outOfScope
    /// The chunk's bytes hash to `actual`, not to what the header or registration said (422).
    case chunkChecksumMismatch(expected: String, actual: String)
    /// Finalize before every chunk arrived (409 `CHUNKS_MISSING`).
    case chunksMissing([Int])
    /// The reassembled file does not match its SHA-256; `suspects` were dropped (422).
    case fileChecksumMismatch(suspects: [Int])
    /// No attachment with this id that the caller may read (404).
    case contentNotFound
    /// The caller may read it but the upload is not finalized yet (409).
    case contentNotReady

    public var description: String {
        switch self {
        case .invalid(let field, _): "invalid \(field)"
        case .sessionNotFound: "no such upload session"
        case .sessionExpired: "upload session expired"
        case .tooLarge(let limit, let perRecord): "attachment over the \(perRecord ? "per-record " : "")limit of \(limit) bytes"
        case .tooManySessions(let limit, let perUser): "more than \(limit) open upload sessions \(perUser ? "of the user" : "of the device")"
        case .declarationMismatch(let field): "attId registered with a different \(field)"
        case .outOfScope: "record outside the caller's scope"
        case .chunkChecksumMismatch: "chunk checksum mismatch"
        case .chunksMissing(let missing): "\(missing.count) chunks missing"
        case .fileChecksumMismatch(let suspects): "file checksum mismatch, \(suspects.count) suspect chunks"
        case .contentNotFound: "no readable attachment"
        case .contentNotReady: "attachment not finalized"
        }
    }
}
