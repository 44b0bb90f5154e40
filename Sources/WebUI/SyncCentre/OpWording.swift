import SyncProtocol

/// How op outcomes read in the back-office: a plain-language status and an explanation
/// for every code, with the code itself only as a secondary detail.
enum OpWording {
    /// The badge text and its style key for an op's status.
    static func status(_ status: OpStatus, code: ErrorCode?) -> (label: String, key: String) {
        switch status {
        case .applied: ("Applied", "success")
        case .conflict where code == .reviewRequired: ("Needs your review", "review")
        case .conflict: ("Conflict", "conflict")
        case .rejected: ("Rejected", "danger")
        case .deferred: ("Waiting", "waiting")
        case .retry: ("Try again", "waiting")
        }
    }

    /// What a code means for the person reading the journal; nil when there is no code.
    static func explanation(_ code: ErrorCode?) -> String? {
        guard let code else { return nil }
        return explanations[code] ?? "The server answered \(code.rawValue)."
    }

    private static let explanations: [ErrorCode: String] = [
        .reviewRequired: "Someone else changed the same fields first. Nothing was applied; a person must choose which version to keep.",
        .fieldConflict: "Someone else changed the same field first; the server kept their value. The other fields were saved.",
        .predecessorFailed: "An earlier change to the same record in this upload failed, so this one was not tried.",
        .transitionNotAllowed: "The status change is not allowed from the record's current status.",
        .recordExists: "The device created a record that already exists on the server.",
        .awaitingPredecessor: "Held until the device's earlier changes arrive; it applies by itself then.",
        .dependencyPending: "Held until its photos or files finish uploading; it applies by itself then.",
        .recordDeleted: "The record had already been deleted, so the change was not applied.",
        .recordNotFound: "The record does not exist on the server.",
        .recordLocked: "The record is closed for changes (for example a finished visit).",
        .validationFailed: "A value was missing or of the wrong kind.",
        .unknownField: "The app sent a field this server does not know. The app may be too old or too new.",
        .unknownCollection: "The app sent a kind of record this server does not know.",
        .fieldReadOnly: "The device tried to change something only the office may change.",
        .outOfScope: "The record belongs to someone outside this user's team or assignments.",
        .occurredAtOutOfRange: "The device's clock put this change too far in the past or the future.",
        .schemaUnsupported: "The app's data format is too old to convert. The app needs an update.",
        .clientSeqRegressed: "The device re-sent a change number it had already used for another change.",
        .idempotencyKeyReused: "The device re-used a change id for different content.",
        .temporarilyUnavailable: "The server was briefly unavailable; the device retries by itself.",
    ]
}
