import FieldSyncClient
import Foundation

/// An ``HTTPTransport`` on one keep-alive socket to a loopback port, reconnecting after a
/// failure. The link benchmark uses it instead of URLSession: on Linux, URLSession (libcurl)
/// sends a request again on a fresh connection when a reused one dies under it, and after a
/// cut mid-upload that second attempt can go out without its body, so the exchange hangs
/// until the request timeout instead of failing at once as a phone's would.
final class SocketTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`.
    private let queue = DispatchQueue(label: "fieldsync.socket-transport")
    private var connection: LoopbackConnection?

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.exchange(request) }) }
        }
    }

    private func exchange(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let port = request.url.port else { throw URLError(.badURL) }
        let target = request.url.path + (request.url.query.map { "?\($0)" } ?? "")
        var head = "\(request.method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(request.body?.count ?? 0)\r\n\r\n"
        let connection = try self.connection ?? LoopbackConnection(port: port)
        do {
            let answer = try connection.exchange(Data(head.utf8) + (request.body ?? Data()))
            self.connection = answer.closesConnection ? nil : connection
            return HTTPResponse(
                status: answer.status, headers: Dictionary(answer.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }),
                body: answer.body)
        } catch {
            self.connection = nil
            throw URLError(.networkConnectionLost)
        }
    }
}
