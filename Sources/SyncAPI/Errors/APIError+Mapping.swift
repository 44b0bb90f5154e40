public import HTTP
import SyncEngine
import SyncProtocol

// Every error the device API answers becomes an `APIError` here, with its catalogue code;
// the status always comes from `ErrorCode.httpStatus`.

extension APIError {
    /// A refusal of the HTTP layer itself.
    init(_ failure: HTTPFailure) {
        switch failure {
        case .notFound:
            self.init(.notFound, "No resource matches this path.")
        case .methodNotAllowed(let allowed):
            self.init(
                .methodNotAllowed, "This path does not accept this method.", details: ["allow": .array(allowed.map { .string($0.rawValue) })])
        case .notImplemented:
            self.init(.notImplemented, "This method is not supported.")
        case .payloadTooLarge(let limit):
            self.init(.payloadTooLarge, "The request body is larger than \(limit) bytes.", details: ["limit": .int(Int64(limit))])
        case .headersTooLarge(let limit):
            self.init(.headersTooLarge, "The request headers are larger than \(limit) bytes.", details: ["limit": .int(Int64(limit))])
        case .malformedJSON(let reason):
            self.init(.malformedJSON, reason)
        case .invalidField(let field, let message):
            self = .validationFailed(field: field, message)
        case .busy:
            self.init(.serverBusy, "The server is busy; retry shortly.")
        case .shuttingDown:
            self.init(.shuttingDown, "The server is restarting; retry shortly.")
        case .internalError:
            self = .internalError()
        }
        for (name, value) in failure.headers { headers[name] = value }
    }

    /// A refused engine request; a request still in progress (a busy idempotency key) and a
    /// device holding too many deferred ops also say when to retry.
    init(_ error: SyncError) {
        self.init(error.code, error.message, details: error.details ?? [:])
        if error.code == .requestInProgress { headers["Retry-After"] = "1" }
        if error.code == .tooManyDeferred { headers["Retry-After"] = "60" }
    }

    /// A refused attachment call.
    init(_ error: AttachmentError) {
        switch error {
        case .invalid(let field, let message):
            self = .validationFailed(field: field, message)
        case .sessionNotFound:
            self.init(.notFound, "No upload session with this attId on this device.")
        case .sessionExpired:
            self.init(.uploadExpired, "The upload session expired after inactivity; register again to start over.")
        case .tooLarge(let limit, let perRecord):
            self.init(
                .attachmentTooLarge, perRecord ? "The record's attachments would exceed \(limit) bytes." : "The attachment exceeds \(limit) bytes.",
                details: ["limit": .int(limit), "scope": .string(perRecord ? "record" : "attachment")])
        case .tooManySessions(let limit, let perUser):
            self.init(
                .tooManyUploads, "\(perUser ? "Your devices have" : "This device has") \(limit) unfinished uploads; finish some first.",
                details: ["limit": .int(Int64(limit)), "scope": .string(perUser ? "user" : "device")], headers: ["Retry-After": "60"])
        case .declarationMismatch(let field):
            self.init(.attachmentMismatch, "This attId is registered with a different \(field).", details: ["field": .string(field)])
        case .outOfScope:
            self.init(.outOfScope, "The record is outside your scope.")
        case .chunkChecksumMismatch(let expected, let actual):
            self.init(
                .chunkChecksumMismatch, "The chunk does not match its SHA-256; it was discarded.",
                details: ["expected": .string(expected), "actual": .string(actual)])
        case .chunksMissing(let missing):
            self.init(.chunksMissing, "Some chunks have not been received.", details: ["missing": .array(missing.map { .int(Int64($0)) })])
        case .fileChecksumMismatch(let suspects):
            self.init(
                .fileChecksumMismatch, "The reassembled file does not match its SHA-256; re-send the suspect chunks.",
                details: ["suspectChunks": .array(suspects.map { .int(Int64($0)) })])
        case .contentNotFound:
            self.init(.notFound, "No such attachment.")
        case .contentNotReady:
            self.init(.uploadIncomplete, "The attachment's upload has not been finalized.")
        }
    }

    /// A refused password login.
    init(_ failure: LoginService.Failure) {
        switch failure {
        case .invalidCredentials:
            self.init(.invalidCredentials, "The user name or password is incorrect.")
        case .suspended:
            self.init(.accountSuspended, "This account is suspended.")
        case .throttled(let seconds):
            self.init(.rateLimited, "Too many failed logins. Try again in \(seconds) seconds.", headers: ["Retry-After": String(seconds)])
        case .busy(let seconds):
            self.init(.serverBusy, "Too many sign-ins at once; retry shortly.", headers: ["Retry-After": String(seconds)])
        }
    }

    /// A live feed refused because too many streams are open.
    init(_ full: LiveFeedFull) {
        let whose = full.scope == .user ? "You have" : "The server has"
        self.init(
            .tooManyStreams, "\(whose) \(full.limit) live feeds open; close one or retry later.",
            details: ["limit": .int(Int64(full.limit)), "scope": .string(full.scope.rawValue)],
            headers: ["Retry-After": String(full.retryAfterSeconds)])
    }

    /// A refused device sign-in; the other account errors never reach the device API.
    init(_ error: AccountError) {
        switch error {
        case .deviceIdTaken(let deviceId):
            self.init(
                .deviceIdTaken, "Another user signs in with this device id. An administrator can release it.",
                details: ["deviceId": .string(deviceId)])
        case .usernameTaken, .invalidUsername, .unknownUser:
            self = .internalError()
        }
    }

    /// A database call that ran past its statement or lock time limit; nothing was stored.
    init(_ busy: StoreBusy) {
        self.init(.serverBusy, "The server is busy; retry shortly.", headers: ["Retry-After": "2"])
    }

    /// A pull cursor this server cannot resume from.
    init(_ failure: PullCursorCodec.Failure) {
        switch failure {
        case .invalid:
            self.init(.cursorInvalid, "This cursor was not issued by this server.")
        case .expired:
            self.init(.cursorExpired, "This cursor is older than 30 days. Download again without a cursor; queued changes are kept.")
        }
    }

    /// Runs a handler, answering the domain errors it throws as their `APIError`s.
    static func translating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SyncError {
            throw APIError(error)
        } catch let error as AttachmentError {
            throw APIError(error)
        } catch let failure as LoginService.Failure {
            throw APIError(failure)
        } catch let failure as PullCursorCodec.Failure {
            throw APIError(failure)
        } catch let full as LiveFeedFull {
            throw APIError(full)
        } catch let error as AccountError {
            throw APIError(error)
        } catch let busy as StoreBusy {
            throw APIError(busy)
        }
    }
}

/// The device API's wording of the HTTP layer's own refusals: the error envelope with the
/// catalogue's code, for every path (the back-office turns 404 and 405 into pages itself).
public struct APIFailureRenderer: HTTPFailureRenderer {
    public init() {}

    public func response(for failure: HTTPFailure) -> Response {
        APIError(failure).response()
    }
}
