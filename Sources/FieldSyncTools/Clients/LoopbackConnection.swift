import App
import Foundation
import Support

/// One HTTP/1.1 answer read off a `LoopbackConnection`.
struct LoopbackResponse {
    let status: Int
    /// Header fields in order, names lowercased.
    let headers: [(name: String, value: String)]
    let body: Data
    /// Bytes the body took on the wire: `body.count`, plus the framing of a chunked body.
    let wireBytes: Int

    /// Every value of the header `name` (e.g. each `Set-Cookie`).
    func values(_ name: String) -> [String] {
        headers.filter { $0.name == name.lowercased() }.map(\.value)
    }

    /// Whether the server closes the connection after this answer.
    var closesConnection: Bool {
        values("connection").contains { $0.lowercased() == "close" }
    }
}

/// One TCP connection to 127.0.0.1 that owns its socket: a blocking keep-alive HTTP/1.1
/// client for benchmarks, so the figures are the server's and not those of a client stack's
/// thread hops. Used by one thread at a time (its owners keep one per thread or run
/// sequentially), hence unchecked Sendable.
final class LoopbackConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer = Data()

    init(port: Int) throws {
        descriptor = try Loopback.connect(port: port)
        // Request and body go out in one write; no reason to wait for acknowledgements.
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Writes `request` (head and body) and reads one response, its body sized by `Content-Length`
    /// or chunked (returned joined, never inflated).
    /// - Throws: `POSIXError` when a write fails; `CommandError` when the server closes the
    ///   connection or a chunk size does not parse.
    func exchange(_ request: Data) throws -> LoopbackResponse {
        try Loopback.send(request, on: descriptor)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil { try fill() }
        let headEnd = buffer.range(of: separator)!
        let lines = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeSubrange(..<headEnd.upperBound)
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        if headers.contains(where: { $0.name == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            let (body, wireBytes) = try readChunkedBody()
            return LoopbackResponse(status: status, headers: headers, body: body, wireBytes: wireBytes)
        }
        let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count < length { try fill() }
        let body = Data(buffer.prefix(length))
        buffer.removeSubrange(..<length)
        return LoopbackResponse(status: status, headers: headers, body: body, wireBytes: length)
    }

    /// The chunks up to the last (empty) one, joined, and the bytes they took with their framing.
    private func readChunkedBody() throws -> (Data, Int) {
        var body = Data()
        var wireBytes = 0
        while true {
            let line = try readLine()
            guard let size = Int(line.split(separator: ";").first ?? "", radix: 16), size >= 0 else {
                throw CommandError("bad chunk size '\(line.prefix(20))'")
            }
            while buffer.count < size + 2 { try fill() }
            body.append(buffer.prefix(size))
            buffer.removeSubrange(..<(size + 2))
            wireBytes += line.utf8.count + 2 + size + 2
            if size == 0 { return (body, wireBytes) }
        }
    }

    private func readLine() throws -> String {
        let end = Data("\r\n".utf8)
        while buffer.range(of: end) == nil { try fill() }
        let range = buffer.range(of: end)!
        let line = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<range.upperBound)
        return line
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { throw CommandError("the server closed the connection") }
        buffer.append(contentsOf: chunk[0..<count])
    }
}
