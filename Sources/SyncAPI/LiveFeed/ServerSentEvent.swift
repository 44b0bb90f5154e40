public import Foundation

/// The `text/event-stream` wire format (WHATWG HTML, "Server-sent events").
///
/// ```text
/// id: 42
/// event: order.status_changed
/// data: {"orderId": "ord-7", "serverSeq": 1207, "status": "CONFIRMED"}
///
/// : ping
///
/// ```
public enum ServerSentEvent {
    /// One event: `id:`, `event:` and one `data:` line per line of `data`, then a blank line.
    static func encode(id: Int64?, event: String, data: String) -> Data {
        var text = id.map { "id: \($0)\n" } ?? ""
        // A field value cannot hold a line break; an event name never should.
        text += "event: \(event.filter { $0 != "\n" && $0 != "\r" })\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return Data((text + "\n").utf8)
    }

    /// A comment line, which clients ignore: keeps idle connections (and proxies) alive.
    static let ping = Data(": ping\n\n".utf8)

    /// Tells EventSource clients how long to wait before reconnecting.
    static func retry(milliseconds: Int) -> Data { Data("retry: \(milliseconds)\n\n".utf8) }
}

/// Splits a `text/event-stream` into events and comments as they arrive, for clients of the
/// feeds (the benchmark, tests, tools). Handles `\n` and `\r\n` line ends.
public struct ServerSentEventParser: Sendable {
    /// One dispatched event.
    public struct Event: Sendable, Equatable {
        public var id: String?
        public var event: String
        public var data: String

        public init(id: String?, event: String, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    /// What a blank line or a comment line produced.
    public enum Message: Sendable, Equatable {
        case event(Event)
        case comment(String)
    }

    private var buffer = Data()
    private var id: String?
    private var event: String?
    private var dataLines: [String] = []

    public init() {}

    /// Adds received bytes; returns the messages they completed, in order.
    public mutating func feed(_ bytes: Data) -> [Message] {
        buffer.append(bytes)
        var messages: [Message] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...newline)
            if line.hasSuffix("\r") { line.removeLast() }
            if let message = take(line) { messages.append(message) }
        }
        return messages
    }

    private mutating func take(_ line: String) -> Message? {
        if line.isEmpty { return dispatch() }
        if line.hasPrefix(":") { return .comment(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)) }
        let (field, value) = Self.split(line)
        switch field {
        case "id": id = value
        case "event": event = value
        case "data": dataLines.append(value)
        default: break  // `retry` and unknown fields
        }
        return nil
    }

    private mutating func dispatch() -> Message? {
        defer {
            event = nil
            dataLines = []
        }
        // As in EventSource: a block without data lines dispatches nothing.
        guard !dataLines.isEmpty else { return nil }
        // The id persists across events, as EventSource's "last event ID" does.
        return .event(Event(id: id, event: event ?? "message", data: dataLines.joined(separator: "\n")))
    }

    /// `field: value` → (field, value) with one leading space of the value removed.
    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (line, "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}
