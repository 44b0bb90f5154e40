import Foundation
import HTTP
import Support

/// A response read off the wire by `RawConnection`.
struct RawResponse {
    let status: Int
    let headers: HTTPHeaders
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The envelope's `error` object, when the body is one.
    var error: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any]
    }

    var errorCode: String? { error?["code"] as? String }
}

struct RawClientError: Error, CustomStringConvertible {
    let description: String
}

/// A blocking loopback client on a POSIX socket, for cases URLSession cannot express:
/// headers without their body, partial chunked bodies, oversized headers.
final class RawConnection {
    private let descriptor: Int32
    private var buffer = Data()

    /// Connects to `127.0.0.1:port`; reads give up after `timeout` seconds.
    /// - Throws: `POSIXError`, e.g. `.ECONNREFUSED` when nothing listens.
    init(port: Int, timeout: Int = 10) throws {
        descriptor = try Loopback.connect(port: port)
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        Foundation.close(descriptor)
    }

    /// Sends bytes; false when the server already closed the connection.
    @discardableResult
    func send(_ data: Data) -> Bool {
        (try? Loopback.send(data, on: descriptor)) != nil
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Sends a whole request with a `Content-Length` body.
    func sendRequest(_ method: String, _ target: String, headers: [(String, String)] = [], body: Data = Data()) {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        send(Data((head + "\r\n").utf8) + body)
    }

    /// Reads one response; `hasBody: false` for answers to HEAD.
    func readResponse(hasBody: Bool = true) throws -> RawResponse {
        let (status, headers) = try readStatusAndHeaders()
        let body: Data
        if !hasBody || status == 204 || status == 304 {
            body = Data()
        } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            body = try readChunkedBody()
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            body = try read(count: length)
        } else {
            body = try readToEnd()
        }
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// Reads the status line and header fields, leaving the body unread.
    func readStatusAndHeaders() throws -> (status: Int, headers: HTTPHeaders) {
        let head = try readHead()
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawClientError(description: "bad status line in \(head)") }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers.add(name: String(parts[0]), value: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        return (status, headers)
    }

    /// Reads one chunk of a chunked body; nil at the terminating chunk.
    func readChunk() throws -> Data? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else { throw RawClientError(description: "bad chunk size \(sizeLine)") }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let chunk = try read(count: size)
        _ = try readLine()
        return chunk
    }

    /// Sends `bytes` one at a time, `interval` apart (a slowloris), until the server closes
    /// the connection or `bound` passes.
    /// - Returns: whether the server closed the connection.
    func dribble(_ bytes: Data, every interval: Duration, within bound: Duration) -> Bool {
        let deadline = ContinuousClock.now + bound
        var next = bytes.startIndex
        while ContinuousClock.now < deadline {
            if next < bytes.endIndex {
                guard send(Data([bytes[next]])) else { return true }
                next += 1
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
            if poll(&poller, 1, milliseconds) > 0, (try? readToEnd()) != nil { return true }
        }
        return false
    }

    /// True when the server closed the connection (reads end-of-file).
    func isClosedByPeer() -> Bool {
        (try? readToEnd()) != nil
    }

    private func readChunkedBody() throws -> Data {
        var body = Data()
        while let chunk = try readChunk() { body += chunk }
        return body
    }

    private func readHead() throws -> String {
        while true {
            if let end = buffer.firstRange(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                buffer = Data(buffer[end.upperBound...])
                return head
            }
            guard try fill() else { throw RawClientError(description: "connection closed before a response") }
        }
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.firstRange(of: Data("\r\n".utf8)) {
                let line = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                buffer = Data(buffer[end.upperBound...])
                return line
            }
            guard try fill() else { throw RawClientError(description: "connection closed mid-line") }
        }
    }

    private func read(count: Int) throws -> Data {
        while buffer.count < count {
            guard try fill() else { throw RawClientError(description: "connection closed mid-body") }
        }
        let data = Data(buffer.prefix(count))
        buffer = Data(buffer.dropFirst(count))
        return data
    }

    private func readToEnd() throws -> Data {
        while try fill() {}
        defer { buffer = Data() }
        return buffer
    }

    /// Reads more bytes; false at end-of-file (or a reset).
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw RawClientError(description: "read timed out") }
            return false
        }
        buffer.append(contentsOf: chunk.prefix(count))
        return count > 0
    }
}

/// Opens a connection, sends one request, reads its response.
func rawRequest(
    port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: Data = Data()
) throws -> RawResponse {
    let connection = try RawConnection(port: port)
    connection.sendRequest(method, target, headers: headers, body: body)
    return try connection.readResponse(hasBody: method != "HEAD")
}
