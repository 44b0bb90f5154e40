import FieldSyncClient
import Foundation
import Synchronization

/// An ``HTTPTransport`` over a small pool of keep-alive sockets to loopback ports: up to
/// `connections` requests at once, each on a socket of its own, as a phone's HTTP stack keeps
/// a few connections per host (URLSession: 6 by default on Apple platforms); a socket that failed is dropped and a fresh one opened for the
/// next request. The link benchmark uses it instead of URLSession: on Linux, URLSession
/// (libcurl) sends a request again on a fresh connection when a reused one dies under it, and
/// after a cut mid-upload that second attempt can go out without its body, so the exchange
/// hangs until the request timeout instead of failing at once as a phone's would.
final class SocketTransport: HTTPTransport, Sendable {
    /// Idle sockets by port.
    private let idle = Mutex<[Int: [LoopbackConnection]]>([:])
    /// One slot per request allowed on the wire at once.
    private let slots: DispatchSemaphore

    init(connections: Int = 6) {
        slots = DispatchSemaphore(value: max(connections, 1))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // The sockets block: each exchange runs on a thread of its own, off the cooperative pool.
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                self.slots.wait()
                defer { self.slots.signal() }
                continuation.resume(with: Result { try self.exchange(request) })
            }
        }
    }

    private func exchange(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let port = request.url.port else { throw URLError(.badURL) }
        let target = request.url.path + (request.url.query.map { "?\($0)" } ?? "")
        var head = "\(request.method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(request.body?.count ?? 0)\r\n\r\n"
        do {
            let connection = try idle.withLock { $0[port]?.popLast() } ?? LoopbackConnection(port: port)
            let answer = try connection.exchange(Data(head.utf8) + (request.body ?? Data()))
            if !answer.closesConnection { idle.withLock { $0[port, default: []].append(connection) } }
            return HTTPResponse(
                status: answer.status, headers: Dictionary(answer.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }),
                body: answer.body)
        } catch {
            throw URLError(.networkConnectionLost)
        }
    }
}
