/// A stable error code of the device protocol, as it appears in `error.code` of an
/// ``ErrorEnvelope`` and in `code` of an ``OpResult``.
///
/// The catalogue is open: a module may add codes in an extension. ``httpStatus`` is the
/// status a code maps to when it fails a whole request; codes that only ever appear on
/// single push results (e.g. ``awaitingPredecessor``) still have a sensible status.
///
/// ```swift
/// let envelope = ErrorEnvelope(code: .recordNotFound, message: "no such order")
/// response.status = ErrorCode.recordNotFound.httpStatus  // 404
/// ```
public struct ErrorCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The HTTP status for this code as a whole-request error; 500 for a code the catalogue does not know.
    public var httpStatus: Int { Self.statuses[self] ?? 500 }
}

// MARK: - Authentication and request shape

extension ErrorCode {
    /// 401: missing, invalid, expired or revoked bearer token.
    public static let unauthenticated = ErrorCode(rawValue: "UNAUTHENTICATED")
    /// 403: the account is suspended; its next call after suspension fails with this code.
    public static let accountSuspended = ErrorCode(rawValue: "ACCOUNT_SUSPENDED")
    /// 401: wrong username or password (one answer for both, throttled).
    public static let invalidCredentials = ErrorCode(rawValue: "INVALID_CREDENTIALS")
    /// 403: the caller's role may not do this (e.g. a field token confirming an order).
    public static let forbidden = ErrorCode(rawValue: "FORBIDDEN")
    /// 409: another user signed in first with this device id; `details.deviceId` names it. An
    /// administrator can release the device in the back-office.
    public static let deviceIdTaken = ErrorCode(rawValue: "DEVICE_ID_TAKEN")
    /// 413: the JSON body exceeds the configured limit (1 MiB by default).
    public static let payloadTooLarge = ErrorCode(rawValue: "PAYLOAD_TOO_LARGE")
    /// 431: the request headers exceed the configured limit (16 KiB by default).
    public static let headersTooLarge = ErrorCode(rawValue: "HEADERS_TOO_LARGE")
    /// 400: the body is not JSON, or nests deeper than 64 levels.
    public static let malformedJSON = ErrorCode(rawValue: "MALFORMED_JSON")
    /// 400: the request (or one op, or one field) violates the schema; `details.field` names it.
    public static let validationFailed = ErrorCode(rawValue: "VALIDATION_FAILED")
    /// 426: the app is below the emergency `hardMinimumAppVersion`.
    public static let upgradeRequired = ErrorCode(rawValue: "UPGRADE_REQUIRED")
    /// 503: maintenance mode; the response carries `Retry-After`.
    public static let maintenance = ErrorCode(rawValue: "MAINTENANCE")
    /// 429: too many requests; the response carries `Retry-After`.
    public static let rateLimited = ErrorCode(rawValue: "RATE_LIMITED")
    /// 404: no such resource.
    public static let notFound = ErrorCode(rawValue: "NOT_FOUND")
    /// 405: the path exists but not with this method; `Allow` and `details.allow` list the methods it takes.
    public static let methodNotAllowed = ErrorCode(rawValue: "METHOD_NOT_ALLOWED")
    /// 501: an HTTP method the server does not support at all.
    public static let notImplemented = ErrorCode(rawValue: "NOT_IMPLEMENTED")
    /// 500: an unexpected server failure; details only in development.
    public static let internalError = ErrorCode(rawValue: "INTERNAL_ERROR")
    /// 503: a transient failure (database unavailable, serialization failure); nothing was stored.
    /// Push results with status `retry` carry this code.
    public static let temporarilyUnavailable = ErrorCode(rawValue: "TEMPORARILY_UNAVAILABLE")
    /// 503: every request worker is busy and the queue is full; the response carries `Retry-After`.
    public static let serverBusy = ErrorCode(rawValue: "SERVER_BUSY")
    /// 429: the caller (`details.scope` `user`) or the server (`server`) already holds the most
    /// live-event streams allowed (`details.limit`); the response carries `Retry-After`.
    public static let tooManyStreams = ErrorCode(rawValue: "TOO_MANY_STREAMS")
    /// 503: the server is stopping (a restart) and did not run the request; the response carries `Retry-After`.
    public static let shuttingDown = ErrorCode(rawValue: "SHUTTING_DOWN")
}

// MARK: - Push validation (rules 4 and 5)

extension ErrorCode {
    /// The op names a collection the schema does not declare.
    public static let unknownCollection = ErrorCode(rawValue: "UNKNOWN_COLLECTION")
    /// The op sets a field the collection does not declare; `details.field` names it.
    public static let unknownField = ErrorCode(rawValue: "UNKNOWN_FIELD")
    /// The op writes a server-owned field, or a collection its role may not write; `details.field` names it.
    public static let fieldReadOnly = ErrorCode(rawValue: "FIELD_READ_ONLY")
    /// The record is outside the caller's scope, or a create would place it there.
    public static let outOfScope = ErrorCode(rawValue: "OUT_OF_SCOPE")
    /// `occurredAt` is more than 5 minutes ahead of the server clock or older than the window (30 days).
    public static let occurredAtOutOfRange = ErrorCode(rawValue: "OCCURRED_AT_OUT_OF_RANGE")
    /// The op's schema version has no migration path to the server's.
    public static let schemaUnsupported = ErrorCode(rawValue: "SCHEMA_UNSUPPORTED")
}

// MARK: - Push ordering and idempotency (rules 1, 2, 3, 6)

extension ErrorCode {
    /// Deferred: an attachment in `dependsOn` is not finalized yet (`missing` lists them),
    /// or an earlier op of the same entity is deferred (`details.blockedBy`).
    public static let dependencyPending = ErrorCode(rawValue: "DEPENDENCY_PENDING")
    /// Deferred: an earlier `clientSeq` of the device has not arrived (`missing` lists the seqs).
    public static let awaitingPredecessor = ErrorCode(rawValue: "AWAITING_PREDECESSOR")
    /// Rejected: a new op reuses a `clientSeq` the device already sent.
    public static let clientSeqRegressed = ErrorCode(rawValue: "CLIENT_SEQ_REGRESSED")
    /// Conflict: an earlier op of the same entity in the batch failed (`details.blockedBy`).
    public static let predecessorFailed = ErrorCode(rawValue: "PREDECESSOR_FAILED")
    /// 422: the same op id (or `Idempotency-Key`) arrived with different content.
    public static let idempotencyKeyReused = ErrorCode(rawValue: "IDEMPOTENCY_KEY_REUSED")
    /// 400: `POST /v1/orders` without an `Idempotency-Key` header.
    public static let idempotencyKeyRequired = ErrorCode(rawValue: "IDEMPOTENCY_KEY_REQUIRED")
    /// 409: a request with the same `Idempotency-Key` is still being processed.
    public static let requestInProgress = ErrorCode(rawValue: "REQUEST_IN_PROGRESS")
}

// MARK: - Record state and conflicts (rules 7 and 8)

extension ErrorCode {
    /// The record is tombstoned; `tombstoneSeq` says when.
    public static let recordDeleted = ErrorCode(rawValue: "RECORD_DELETED")
    /// Update or delete of a record that never existed.
    public static let recordNotFound = ErrorCode(rawValue: "RECORD_NOT_FOUND")
    /// Create of a record that exists; `details.serverPayload` holds it.
    public static let recordExists = ErrorCode(rawValue: "RECORD_EXISTS")
    /// The record matches its collection's lock rule (e.g. a visit that is `done`).
    public static let recordLocked = ErrorCode(rawValue: "RECORD_LOCKED")
    /// The status change is not an allowed transition from the current server value.
    public static let transitionNotAllowed = ErrorCode(rawValue: "TRANSITION_NOT_ALLOWED")
    /// The server kept at least one overlapping field; `conflicts[]` lists them.
    public static let fieldConflict = ErrorCode(rawValue: "FIELD_CONFLICT")
    /// A `manual`-policy collection: nothing applied, a conflict entry awaits review.
    public static let reviewRequired = ErrorCode(rawValue: "REVIEW_REQUIRED")
    /// 409: the conflict entry was resolved already.
    public static let conflictAlreadyResolved = ErrorCode(rawValue: "CONFLICT_ALREADY_RESOLVED")
    /// 409: confirming or rejecting an order whose status is not `SUBMITTED`.
    public static let orderNotSubmitted = ErrorCode(rawValue: "ORDER_NOT_SUBMITTED")
}

// MARK: - Pull and attachments

extension ErrorCode {
    /// 400: the pull cursor's signature does not verify.
    public static let cursorInvalid = ErrorCode(rawValue: "CURSOR_INVALID")
    /// 410: the pull cursor is older than 30 days; re-download from no cursor.
    public static let cursorExpired = ErrorCode(rawValue: "CURSOR_EXPIRED")
    /// 413: the attachment exceeds `maxAttachmentBytes` or the per-record total.
    public static let attachmentTooLarge = ErrorCode(rawValue: "ATTACHMENT_TOO_LARGE")
    /// 422: a chunk's bytes do not match its SHA-256.
    public static let chunkChecksumMismatch = ErrorCode(rawValue: "CHUNK_CHECKSUM_MISMATCH")
    /// 409: finalize before every chunk arrived; `details.missing` lists the indexes.
    public static let chunksMissing = ErrorCode(rawValue: "CHUNKS_MISSING")
    /// 422: the reassembled file does not match its SHA-256; `details.suspectChunks` lists chunks to re-send.
    public static let fileChecksumMismatch = ErrorCode(rawValue: "FILE_CHECKSUM_MISMATCH")
    /// 410: the upload session expired after 72 hours without activity; register again.
    public static let uploadExpired = ErrorCode(rawValue: "UPLOAD_EXPIRED")
    /// 409: the attId is registered with a different declaration; `details.field` names what differs.
    public static let attachmentMismatch = ErrorCode(rawValue: "ATTACHMENT_MISMATCH")
    /// 429: the device already has the maximum number of unfinished uploads.
    public static let tooManyUploads = ErrorCode(rawValue: "TOO_MANY_UPLOADS")
    /// 429: a push would leave its device holding more deferred ops than the server keeps;
    /// nothing of the push was stored. `details.limit` and `details.deferred` give the figures.
    public static let tooManyDeferred = ErrorCode(rawValue: "TOO_MANY_DEFERRED")
    /// 409: the attachment's content was asked for before its upload was finalized.
    public static let uploadIncomplete = ErrorCode(rawValue: "UPLOAD_INCOMPLETE")
    /// 416: a `Range` header starting beyond the end of the content.
    public static let rangeNotSatisfiable = ErrorCode(rawValue: "RANGE_NOT_SATISFIABLE")
}

// MARK: - HTTP statuses

extension ErrorCode {
    private static let statuses: [ErrorCode: Int] = [
        .unauthenticated: 401, .accountSuspended: 403, .invalidCredentials: 401, .forbidden: 403, .deviceIdTaken: 409,
        .payloadTooLarge: 413, .headersTooLarge: 431, .malformedJSON: 400, .validationFailed: 400,
        .upgradeRequired: 426, .maintenance: 503, .rateLimited: 429, .notFound: 404, .methodNotAllowed: 405,
        .notImplemented: 501, .internalError: 500, .temporarilyUnavailable: 503, .serverBusy: 503, .shuttingDown: 503,
        .tooManyStreams: 429,
        .unknownCollection: 400, .unknownField: 400, .fieldReadOnly: 403, .outOfScope: 403,
        .occurredAtOutOfRange: 422, .schemaUnsupported: 422,
        .dependencyPending: 409, .awaitingPredecessor: 409, .clientSeqRegressed: 409, .predecessorFailed: 409,
        .idempotencyKeyReused: 422, .idempotencyKeyRequired: 400, .requestInProgress: 409,
        .recordDeleted: 410, .recordNotFound: 404, .recordExists: 409, .recordLocked: 409,
        .transitionNotAllowed: 409, .fieldConflict: 409, .reviewRequired: 409, .conflictAlreadyResolved: 409,
        .orderNotSubmitted: 409,
        .cursorInvalid: 400, .cursorExpired: 410, .attachmentTooLarge: 413, .chunkChecksumMismatch: 422,
        .chunksMissing: 409, .fileChecksumMismatch: 422, .uploadExpired: 410, .attachmentMismatch: 409,
        .tooManyUploads: 429, .tooManyDeferred: 429, .uploadIncomplete: 409, .rangeNotSatisfiable: 416,
    ]

    /// Every code the catalogue declares.
    public static var allKnown: [ErrorCode] { statuses.keys.sorted { $0.rawValue < $1.rawValue } }
}
