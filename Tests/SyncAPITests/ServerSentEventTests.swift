import Foundation
import Testing

@testable import SyncAPI

@Suite("Server-sent event format")
struct ServerSentEventTests {
    @Test("An event is id, event and data lines and a blank line")
    func encoding() {
        let bytes = ServerSentEvent.encode(id: 42, event: "order.created", data: #"{"orderId": "o-1"}"#)
        #expect(String(decoding: bytes, as: UTF8.self) == "id: 42\nevent: order.created\ndata: {\"orderId\": \"o-1\"}\n\n")
    }

    @Test("Line breaks in data become several data lines; the parser joins them back")
    func multiLineData() {
        let bytes = ServerSentEvent.encode(id: nil, event: "reset\n", data: "a\nb")
        #expect(String(decoding: bytes, as: UTF8.self) == "event: reset\ndata: a\ndata: b\n\n")
        var parser = ServerSentEventParser()
        #expect(parser.feed(bytes) == [.event(.init(id: nil, event: "reset", data: "a\nb"))])
    }

    @Test("The parser reassembles events split anywhere, keeps the last id, reports comments and skips retry")
    func parsing() {
        let stream = "retry: 1000\n\n: ping\n\nid: 7\r\nevent: record.changed\r\ndata: {}\r\n\r\nevent: x\ndata: y\n\n"
        var parser = ServerSentEventParser()
        var messages: [ServerSentEventParser.Message] = []
        for byte in Data(stream.utf8) { messages += parser.feed(Data([byte])) }
        #expect(
            messages == [
                .comment("ping"), .event(.init(id: "7", event: "record.changed", data: "{}")), .event(.init(id: "7", event: "x", data: "y")),
            ])
    }
}
