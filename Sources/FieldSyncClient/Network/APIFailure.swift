import Foundation
import SyncProtocol

/// Why a server call did not return what was asked.
enum APIFailure: Error, CustomStringConvertible {
    /// No complete HTTP answer: no network, refused, reset, timed out.
    case network(String)
    /// An HTTP error answer with its envelope (when the body was one) and `Retry-After`.
    case refused(status: Int, error: ErrorEnvelope.Body?, retryAfter: Duration?)
    /// A 2xx answer whose body is not what the protocol promises.
    case unreadable(String)

    var description: String {
        switch self {
        case .network(let reason): "network unavailable (\(reason))"
        case .refused(let status, let error, _): "HTTP \(status)" + (error.map { " \($0.code): \($0.message)" } ?? "")
        case .unreadable(let reason): "unexpected answer (\(reason))"
        }
    }

    var status: Int? { if case .refused(let status, _, _) = self { status } else { nil } }

    var code: ErrorCode? { if case .refused(_, let error, _) = self { error?.code } else { nil } }

    var details: [String: JSONValue] { if case .refused(_, let error, _) = self { error?.details ?? [:] } else { [:] } }

    var retryAfter: Duration? { if case .refused(_, _, let wait) = self { wait } else { nil } }

    /// Worth trying again later without anyone acting: the network, 5xx, 429 and 503.
    var isTransient: Bool {
        switch self {
        case .network: true
        case .refused(let status, _, _): status >= 500 || status == 429 || status == 408
        case .unreadable: false
        }
    }

    /// Integer entries of `details[key]` (e.g. `missing`, `suspectChunks`).
    func indexes(_ key: String) -> [Int] {
        (details[key]?.arrayValue ?? []).compactMap { $0.intValue.flatMap(Int.init(exactly:)) }
    }
}
