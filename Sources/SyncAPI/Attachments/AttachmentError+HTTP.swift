import HTTP
import Storage
import SyncProtocol

extension AttachmentError {
    /// The protocol's answer for this refusal: status, stable code and details.
    var httpError: HTTPError {
        switch self {
        case .invalid(let field, let message):
            return .validationFailed(field: field, message: message)
        case .sessionNotFound:
            return HTTPError(status: 404, code: ErrorCode.notFound.rawValue, message: "No upload session with this attId on this device.")
        case .sessionExpired:
            return HTTPError(
                status: 410, code: ErrorCode.uploadExpired.rawValue, message: "The upload session expired after inactivity; register again to start over.")
        case .tooLarge(let limit, let perRecord):
            return HTTPError(
                status: 413, code: ErrorCode.attachmentTooLarge.rawValue,
                message: perRecord ? "The record's attachments would exceed \(limit) bytes." : "The attachment exceeds \(limit) bytes.",
                details: ["limit": .int(Int(limit)), "scope": .string(perRecord ? "record" : "attachment")])
        case .tooManySessions(let limit):
            return HTTPError(
                status: 429, code: ErrorCode.tooManyUploads.rawValue, message: "This device has \(limit) unfinished uploads; finish some first.",
                details: ["limit": .int(limit)], headers: ["Retry-After": "60"])
        case .declarationMismatch(let field):
            return HTTPError(
                status: 409, code: ErrorCode.attachmentMismatch.rawValue, message: "This attId is registered with a different \(field).",
                details: ["field": .string(field)])
        case .outOfScope:
            return HTTPError(status: 403, code: ErrorCode.outOfScope.rawValue, message: "The record is outside your scope.")
        case .chunkChecksumMismatch(let expected, let actual):
            return HTTPError(
                status: 422, code: ErrorCode.chunkChecksumMismatch.rawValue, message: "The chunk does not match its SHA-256; it was discarded.",
                details: ["expected": .string(expected), "actual": .string(actual)])
        case .chunksMissing(let missing):
            return HTTPError(
                status: 409, code: ErrorCode.chunksMissing.rawValue, message: "Some chunks have not been received.",
                details: ["missing": .array(missing.map { .int($0) })])
        case .fileChecksumMismatch(let suspects):
            return HTTPError(
                status: 422, code: ErrorCode.fileChecksumMismatch.rawValue,
                message: "The reassembled file does not match its SHA-256; re-send the suspect chunks.",
                details: ["suspectChunks": .array(suspects.map { .int($0) })])
        case .contentNotFound:
            return HTTPError(status: 404, code: ErrorCode.notFound.rawValue, message: "No such attachment.")
        case .contentNotReady:
            return HTTPError(status: 409, code: ErrorCode.uploadIncomplete.rawValue, message: "The attachment's upload has not been finalized.")
        }
    }
}
