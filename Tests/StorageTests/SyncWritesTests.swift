import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import SyncProtocol
import Testing

/// How the PostgreSQL sync store writes records: it updates the rows its transaction read and
/// inserts the others (`SyncTransaction.write`).
@Suite("Sync writes insert new rows and update the rows they read")
struct SyncWritesTests {
    private func record(_ title: String, seq: Int64) -> StoredRecord {
        StoredRecord(
            collection: "jobs", recordId: "job-1", payload: ["title": .string(title)], fieldMeta: ["title": FieldMeta(seq: seq)],
            serverSeq: seq, schemaVersion: 1, createdAt: "2026-12-01T00:00:00Z", updatedAt: "2026-12-01T00:00:00Z")
    }

    private func writing(_ record: StoredRecord) -> WriteSet {
        var writes = WriteSet()
        writes.records = [record]
        return writes
    }

    private func storedTitle(_ database: PostgresClient) throws -> [String] {
        try database.withConnection { connection in
            try connection.query("SELECT payload->>'title' FROM records WHERE collection = 'jobs' AND record_id = 'job-1'")
                .map { try $0.decode(0, as: String.self) }
        }
    }

    @Test("a record that exists is never overwritten by a write that did not read it, and updated by one that did")
    func unreadRecordIsNotOverwritten() throws {
        let database = try StorageDatabase.migrated()
        defer { database.shutdown() }
        let store = PostgresSyncStore(
            database: database, attachments: PostgresAttachmentStore(database: database), logger: Logger(label: "test", level: .warning))
        let key = RecordKey(collection: "jobs", recordId: "job-1")

        try store.transaction { tx in
            #expect(try tx.lockRecords([key]).isEmpty)
            try tx.write(writing(record("first", seq: 1)))
        }
        #expect(try storedTitle(database) == ["first"])

        // Written blind, as no engine transaction does: the insert meets the row and fails.
        #expect(throws: PostgresError.self) {
            try store.transaction { tx in try tx.write(writing(record("blind", seq: 2))) }
        }
        #expect(try storedTitle(database) == ["first"])

        try store.transaction { tx in
            let current = try tx.lockRecords([key])
            #expect(current.map(\.payload) == [["title": .string("first")]])
            try tx.write(writing(record("second", seq: 3)))
        }
        #expect(try storedTitle(database) == ["second"])
        let seqs = try database.withConnection { connection in
            try connection.query("SELECT server_seq, change_json LIKE '%\"second\"%' FROM records").map {
                (try $0.decode(0, as: Int64.self), try $0.decode(1, as: Bool.self))
            }
        }
        #expect(seqs.count == 1 && seqs.first?.0 == 3 && seqs.first?.1 == true)
    }
}
