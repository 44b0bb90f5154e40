import Foundation
import Postgres
import PostgresTesting
import Testing

@Suite("PostgresListener")
struct PostgresListenerTests {
    struct Message: Sendable, Equatable {
        var channel: String
        var payload: String
    }

    /// Sends `ping` notifications until the listener reports one, so the test knows it is subscribed.
    private func waitUntilListening(_ inbox: Collected<Message>, channel: String, sender: PostgresConnection) throws -> Bool {
        try eventually {
            try sender.query("SELECT pg_notify(\(channel), \("ping"))")
            return inbox.all.contains { $0.payload == "ping" }
        }
    }

    @Test("delivers notifications with their channel and payload, in order")
    func delivers() throws {
        let configuration = try TestDatabase.configuration()
        let inbox = Collected<Message>()
        let channels = ["fieldsync_events", "Team \"Alpha\""]
        let listener = PostgresListener(configuration: configuration, channels: channels, logger: testLogger) { channel, payload in
            inbox.append(Message(channel: channel, payload: payload))
        }
        listener.start()
        defer { listener.stop() }
        let sender = try PostgresConnection(configuration: configuration, logger: testLogger)
        defer { sender.close() }
        #expect(try waitUntilListening(inbox, channel: channels[0], sender: sender))
        for (index, payload) in ["first", "{\"id\": 2} é 🎉", "third"].enumerated() {
            try sender.query("SELECT pg_notify(\(channels[index % 2]), \(payload))")
        }
        try sender.query("SELECT pg_notify(\("not_subscribed"), \("x"))")
        #expect(eventually { inbox.all.filter { $0.payload != "ping" }.count == 3 })
        let received = inbox.all.filter { $0.payload != "ping" }
        #expect(
            received == [
                Message(channel: channels[0], payload: "first"), Message(channel: channels[1], payload: "{\"id\": 2} é 🎉"),
                Message(channel: channels[0], payload: "third"),
            ])
    }

    @Test("reconnects after its backend is terminated and keeps receiving")
    func reconnects() throws {
        let configuration = try TestDatabase.configuration()
        let inbox = Collected<Message>()
        let listener = PostgresListener(configuration: configuration, channels: ["events"], logger: testLogger) { channel, payload in
            inbox.append(Message(channel: channel, payload: payload))
        }
        listener.start()
        defer { listener.stop() }
        let admin = try PostgresConnection(configuration: configuration, logger: testLogger)
        defer { admin.close() }
        #expect(try waitUntilListening(inbox, channel: "events", sender: admin))
        let pids = try admin.query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'fieldsync-listener' AND datname = current_database()")
        #expect(pids.count == 1)
        for row in pids { try terminateBackend(try row.decode(0, as: Int.self), using: admin) }
        let delivered = try eventually {
            try admin.query("SELECT pg_notify(\("events"), \("after"))")
            return inbox.all.contains(Message(channel: "events", payload: "after"))
        }
        #expect(delivered)
    }

    @Test("stops promptly and can be stopped twice")
    func stops() throws {
        let listener = PostgresListener(configuration: try TestDatabase.configuration(), channels: ["x"], logger: testLogger) { _, _ in }
        listener.start()
        let start = Date()
        listener.stop()
        listener.stop()
        #expect(Date().timeIntervalSince(start) < 1)
    }
}
