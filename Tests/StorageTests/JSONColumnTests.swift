import Foundation
import SyncProtocol
import Testing

@testable import Storage

@Suite("JSON columns of the sync tables")
struct JSONColumnTests {
    @Test("field metadata is written canonically and reads back the same")
    func fieldMetaRoundTrip() throws {
        let meta: [String: FieldMeta] = [
            "status": FieldMeta(seq: 12, opId: "op-\"1\"", deviceId: "dev-1"), "title": FieldMeta(seq: 3), "é": FieldMeta(seq: 4, opId: "o"),
        ]
        let text = JSONColumn.encode(meta)
        #expect(text == #"{"status":{"deviceId":"dev-1","opId":"op-\"1\"","seq":12},"title":{"seq":3},"é":{"opId":"o","seq":4}}"#)
        #expect(try JSONColumn.decodeFieldMeta(text) == meta)
        #expect(try JSONDecoder().decode([String: FieldMeta].self, from: Data(text.utf8)) == meta)
        #expect(JSONColumn.encode([String: FieldMeta]()) == "{}")
    }

    @Test("payloads and field metadata the quick parser leaves alone still decode")
    func fallbacks() throws {
        #expect(try JSONColumn.decodePayload(#"{"big": 1e300, "n": 2}"#) == ["big": .double(1e300), "n": 2])
        #expect(try JSONColumn.decodeFieldMeta(#"{"a": {"seq": 1E1}}"#) == ["a": FieldMeta(seq: 10)])
        #expect(throws: (any Error).self) { try JSONColumn.decodePayload("[1]") }
    }
}
