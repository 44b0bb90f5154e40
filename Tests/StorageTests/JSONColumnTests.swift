import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

@testable import Storage

@Suite("JSON columns of the sync tables")
struct JSONColumnTests {
    private func record(_ id: String, _ fieldMeta: [String: FieldMeta]) -> StoredRecord {
        StoredRecord(
            collection: "jobs", recordId: id, payload: [:], fieldMeta: fieldMeta, serverSeq: 1, schemaVersion: 3,
            createdAt: "2026-11-03T09:00:00Z", updatedAt: "2026-11-03T09:00:00Z")
    }

    @Test("field metadata is encoded ahead of its numbers, filled in canonically, and reads back the same")
    func fieldMetaColumn() throws {
        let draft = [
            record(
                "a",
                ["status": FieldMeta(seq: 900, opId: "op-\"1\"", deviceId: "dev-1"), "title": FieldMeta(seq: 3), "é": FieldMeta(seq: 901, opId: "o")]),
            record("b", [:]),
        ]
        var final = draft
        final[0].fieldMeta["status"]?.seq = 12
        final[0].fieldMeta["é"]?.seq = 13
        let column = FieldMetaColumn(draft)
        let literal = try #require(column.filled(with: final))
        let elements = try [String](postgresText: literal)
        #expect(
            elements == [
                #"{"status":{"deviceId":"dev-1","opId":"op-\"1\"","seq":12},"title":{"seq":3},"é":{"opId":"o","seq":13}}"#, "{}",
            ])
        #expect(try JSONColumn.decodeFieldMeta(elements[0]) == final[0].fieldMeta)
        #expect(column.filled(with: [final[1]]) == nil, "rows that are not the drafted ones")
        #expect(try [String](postgresText: try #require(FieldMetaColumn([]).filled(with: []))) == [])
    }

    @Test("payloads and field metadata the quick parser leaves alone still decode")
    func fallbacks() throws {
        #expect(try JSONColumn.decodePayload(#"{"big": 1e300, "n": 2}"#) == ["big": .double(1e300), "n": 2])
        #expect(try JSONColumn.decodeFieldMeta(#"{"a": {"seq": 1E1}}"#) == ["a": FieldMeta(seq: 10)])
        #expect(throws: (any Error).self) { try JSONColumn.decodePayload("[1]") }
    }
}
