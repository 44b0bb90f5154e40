import FieldSyncClient
import Foundation
import Synchronization

/// URLSession with two faults a test can switch on, and a log of what was sent:
/// - the network is down: requests fail before reaching the server;
/// - a connection cut mid-transfer: a matching request reaches the server, which handles
///   it, but the answer never arrives (the request's effect is real, the device does not
///   know it).
final class FaultyTransport: HTTPTransport {
    enum Fault: Sendable {
        case networkDown
        /// Cuts the next `count` requests whose "METHOD path" contains `matching` after the
        /// server handled them.
        case cutAfterSending(matching: String, count: Int)
    }

    private let base = URLSessionTransport(timeout: 30)
    private let state = Mutex<(fault: Fault?, log: [String])>((nil, []))

    func set(_ fault: Fault?) { state.withLock { $0.fault = fault } }

    /// "METHOD path" of every request that reached the server, in order.
    var log: [String] { state.withLock { $0.log } }

    func clearLog() { state.withLock { $0.log.removeAll() } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let line = "\(request.method) \(request.url.path)"
        let cut = try state.withLock { state -> Bool in
            switch state.fault {
            case .networkDown?:
                throw URLError(.notConnectedToInternet)
            case .cutAfterSending(let matching, let count)? where line.contains(matching):
                state.fault = count > 1 ? .cutAfterSending(matching: matching, count: count - 1) : nil
                state.log.append(line)
                return true
            default:
                state.log.append(line)
                return false
            }
        }
        let response = try await base.send(request)
        if cut { throw URLError(.networkConnectionLost) }
        return response
    }
}
