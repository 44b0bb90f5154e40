import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import SyncProtocol
import Testing

@Suite("Outbox ids without a writers' lock")
struct EventOutboxOrderTests {
    private func event(_ name: String) -> PendingEvent {
        PendingEvent(type: .recordChanged, data: ["recordId": .string(name)], audience: [])
    }

    private func subjects(_ entries: [OutboxEntry]) -> [String] {
        entries.map { entry in
            guard case .object(let data)? = JSONValue(parsing: entry.data), case .string(let name)? = data["recordId"] else { return "?" }
            return name
        }
    }

    @Test("a writer never waits for an open one, and feeds read nothing past the open one until it commits, then both in order")
    func settledOrder() throws {
        let database = try StorageDatabase.migrated()
        let reader = PostgresOutboxReader(database: database, logger: Logger(label: "test", level: .warning))
        let holder = try PostgresConnection(configuration: database.configuration, logger: Logger(label: "test", level: .warning))
        defer { holder.close() }
        try holder.executeScript("BEGIN")
        try EventOutbox.append([event("first")], on: holder)

        // Returns at once: no lock is shared with the open transaction.
        try database.withTransaction { try EventOutbox.append([event("second")], on: $0) }
        #expect(try reader.entries(after: 0, through: .max, limit: 10).isEmpty, "the later commit waits behind the open writer")
        #expect(try reader.latestId() == 0)

        try holder.executeScript("COMMIT")
        let entries = try reader.entries(after: 0, through: .max, limit: 10)
        #expect(subjects(entries) == ["first", "second"])
        #expect(try reader.latestId() == entries.last?.id)
        #expect(try reader.position(after: 0).issuedThrough >= entries[1].id)
    }
}
