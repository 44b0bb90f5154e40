import Foundation
import Support
import SyncAPI

/// A live-feed client on a raw loopback socket: sends one `GET`, then reads the chunked
/// `text/event-stream` as it arrives. Unlike URLSession it can stop reading altogether (a
/// stalled client) and shrink its receive buffer so the server notices.
///
/// Blocking socket calls run on the connection's own serial queue, never on the test's
/// cooperative threads.
final class EventStreamConnection: @unchecked Sendable {
    typealias Event = ServerSentEventParser.Event
    typealias Message = ServerSentEventParser.Message

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The answer's status and header fields (names lowercased).
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    /// Socket state and everything below is touched only on `queue`.
    private let queue = DispatchQueue(label: "fieldsync.test.event-stream")
    private let descriptor: Int32
    private var raw = Data()
    private var parser = ServerSentEventParser()
    private var messages: [Message] = []
    private var ended = false

    /// Connects and sends `GET path` with `headers`.
    /// - Parameter receiveBufferBytes: a small kernel receive buffer, for a client that stalls.
    init(port: Int, path: String = "/v1/events", headers: [String: String], receiveBufferBytes: Int32? = nil) throws {
        descriptor = try Loopback.connect(port: port) { descriptor in
            if var size = receiveBufferBytes {
                setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
        }
        var request = "GET \(path) HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let bytes = Array((request + "\r\n").utf8)
        guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            Foundation.close(descriptor)
            throw Failure(description: "cannot send the request")
        }
    }

    /// A bearer-authenticated `GET /v1/events`.
    convenience init(port: Int, token: String, lastEventId: String? = nil) throws {
        var headers = ["Authorization": "Bearer \(token)"]
        if let lastEventId { headers["Last-Event-ID"] = lastEventId }
        try self.init(port: port, headers: headers)
    }

    deinit {
        Foundation.close(descriptor)
    }

    /// Reads the status line and header fields.
    func open(timeout: TimeInterval = 10) async throws -> Int {
        try await onQueue { try self.readHead(deadline: Date() + timeout) }
    }

    /// The next event or comment.
    /// - Throws: `Failure` when none arrives within `timeout` or the stream ends.
    func next(timeout: TimeInterval = 10) async throws -> Message {
        try await onQueue {
            let deadline = Date() + timeout
            while self.messages.isEmpty {
                guard try self.fill(until: deadline) else { throw Failure(description: "the stream ended") }
            }
            return self.messages.removeFirst()
        }
    }

    /// The next event, skipping comments.
    func nextEvent(timeout: TimeInterval = 10) async throws -> Event {
        let deadline = Date() + timeout
        while true {
            if case .event(let event) = try await next(timeout: max(0, deadline.timeIntervalSinceNow)) { return event }
        }
    }

    /// Events until one satisfies `stop` (included), skipping comments.
    func events(until stop: (Event) -> Bool, timeout: TimeInterval = 10) async throws -> [Event] {
        let deadline = Date() + timeout
        var events: [Event] = []
        repeat {
            events.append(try await nextEvent(timeout: max(0, deadline.timeIntervalSinceNow)))
        } while !stop(events[events.count - 1])
        return events
    }

    /// Every event that arrives within `seconds` (comments skipped); none when the stream ends.
    func events(during seconds: TimeInterval) async throws -> [Event] {
        let deadline = Date() + seconds
        var events: [Event] = []
        while deadline.timeIntervalSinceNow > 0 {
            guard let message = try? await next(timeout: deadline.timeIntervalSinceNow) else { break }
            if case .event(let event) = message { events.append(event) }
        }
        return events
    }

    /// Whether the server ended the stream (terminating chunk or closed socket) within `timeout`.
    func waitForEnd(timeout: TimeInterval = 10) async throws -> Bool {
        try await onQueue {
            let deadline = Date() + timeout
            while !self.ended {
                guard (try? self.step(until: deadline)) != nil else { return false }
            }
            return true
        }
    }

    // MARK: - On the queue

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func readHead(deadline: Date) throws -> Int {
        while raw.firstRange(of: Data("\r\n\r\n".utf8)) == nil {
            guard try receive(until: deadline) else { throw Failure(description: "closed before the response head") }
        }
        let end = raw.firstRange(of: Data("\r\n\r\n".utf8))!
        let lines = String(decoding: raw[raw.startIndex..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        raw.removeSubrange(raw.startIndex..<end.upperBound)
        status = Int(lines[0].split(separator: " ")[1]) ?? 0
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        if headers["transfer-encoding"] != "chunked" { ended = true }
        return status
    }

    /// Reads until a message is decoded; false when the stream ends first.
    private func fill(until deadline: Date) throws -> Bool {
        while messages.isEmpty {
            guard !ended else { return false }
            try step(until: deadline)
        }
        return true
    }

    /// Decodes one chunk, or receives more bytes; notes the end of the stream.
    private func step(until deadline: Date) throws {
        if let size = try takeChunk() {
            if size == 0 { ended = true }
        } else if try !receive(until: deadline) {
            ended = true
        }
    }

    /// Takes one complete chunk off `raw` into the parser; its size, or nil when incomplete.
    private func takeChunk() throws -> Int? {
        guard let lineEnd = raw.firstRange(of: Data("\r\n".utf8)) else { return nil }
        let sizeText = String(decoding: raw[raw.startIndex..<lineEnd.lowerBound], as: UTF8.self)
        guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else { throw Failure(description: "bad chunk size \(sizeText)") }
        let start = lineEnd.upperBound
        guard raw.distance(from: start, to: raw.endIndex) >= size + 2 else { return nil }
        let payload = raw[start..<raw.index(start, offsetBy: size)]
        messages += parser.feed(Data(payload))
        raw.removeSubrange(raw.startIndex..<raw.index(start, offsetBy: size + 2))
        return size
    }

    /// Waits for bytes until `deadline`; false at end-of-file.
    private func receive(until deadline: Date) throws -> Bool {
        let milliseconds = Int32(max(0, min(deadline.timeIntervalSinceNow, 60)) * 1000)
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorSet, 1, milliseconds) > 0 else { throw Failure(description: "nothing arrived in time") }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        raw.append(contentsOf: buffer.prefix(count))
        return true
    }
}
