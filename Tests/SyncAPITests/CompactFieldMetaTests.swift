import Foundation
import SyncProtocol
import Testing

@testable import SyncAPI

/// The compact rewrite of stored field metadata (PROTOCOL.md, Pull): the token reader and the
/// general parser agree, and whatever the reader does not expect still comes out right.
@Suite("Compact field metadata")
struct CompactFieldMetaTests {
    /// `stored` rewritten on one page, with the page's op table, decoded as a device would.
    private func decoded(_ stored: [String]) throws -> [[String: FieldMeta]] {
        var compact = CompactFieldMeta()
        var bytes = Array(#"{"changes":["#.utf8)
        for (index, text) in stored.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += Array(
                #"{"collection":"jobs","recordId":"r\#(index)","serverSeq":9,"type":"upsert","payload":{},"schemaVersion":1,"fieldMeta":"#.utf8)
            compact.write(text, into: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += Array(#"],"fieldMetaOps":"#.utf8)
        compact.writeTable(into: &bytes)
        bytes += Array(#","nextCursor":"c","hasMore":false,"newServerSeq":9,"minSupportedAppVersion":"1.0.0","serverSchemaVersion":1}"#.utf8)
        return try JSONDecoder().decode(PullResponse.self, from: Data(bytes)).changes.map { $0.fieldMeta ?? [:] }
    }

    @Test("The server's own form, PostgreSQL's spacing, nulls, escapes and empty objects come out as their full form says")
    func sameAsFull() throws {
        let stored = [
            #"{"title":{"deviceId":"d-1","opId":"op-1","seq":12},"notes":{"deviceId":"d-1","opId":"op-1","seq":13}}"#,
            #"{"title": {"seq": 20, "opId": "op-2", "deviceId": "d-2"}, "status": {"seq": 21}}"#,
            #"{"a\"b": {"seq": 5, "opId": null, "deviceId": "d-\u00e9"}, "c": {"seq": 6, "opId": "op-1", "deviceId": "d-1"}}"#,
            "{}",
            " { \"x\" :\n{ \"seq\" : 7 , \"opId\" : \"op-1\" , \"deviceId\" : \"d-1\" } } ",
        ]
        let expected = try stored.map { try JSONDecoder().decode([String: FieldMeta].self, from: Data($0.utf8)) }
        #expect(try decoded(stored) == expected)
    }

    @Test("Text of another shape goes through the general parser: negative, fractional and long numbers, unknown members")
    func otherShapes() throws {
        let stored = [
            #"{"t": {"seq": -3, "opId": "op-1"}}"#,
            #"{"t": {"seq": 1234567890123456789, "opId": "op-1"}}"#,
            #"{"t": {"seq": 4, "opId": "op-1", "deviceId": "d", "extra": 1}}"#,
            #"{"t": {"seq": 4, "seq": 5}}"#,
            #"{"t": {"seq": 4.0}}"#,
            #"{"t": {"seq": 4, "opId": nul}}"#,
            #"{"t": {"seq": 4, "opId": n"#,
        ]
        #expect(
            try decoded(Array(stored.prefix(2))) == [
                ["t": FieldMeta(seq: -3, opId: "op-1")], ["t": FieldMeta(seq: 1_234_567_890_123_456_789, opId: "op-1")],
            ])
        for text in stored {
            var fields: [StoredFieldMeta.Field] = []
            text.utf8.withContiguousStorageIfAvailable { #expect(!StoredFieldMeta.read($0, into: &fields), "\(text)") }
        }
    }

    @Test("Each (opId, deviceId) pair is named once per page, however many fields and records name it")
    func opsNamedOnce() throws {
        var compact = CompactFieldMeta()
        var bytes: [UInt8] = []
        compact.write(#"{"a":{"seq":1,"opId":"o","deviceId":"d"},"b":{"seq":2,"opId":"o","deviceId":"d"}}"#, into: &bytes)
        compact.write(
            #"{"a": {"seq": 3, "opId": "p", "deviceId": "d"}, "b": {"seq": 4, "opId": "o", "deviceId": "d"}, "c": {"seq": 5}}"#, into: &bytes)
        var table: [UInt8] = []
        compact.writeTable(into: &table)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":[1,0],"b":[2,0]}{"a":[3,1],"b":[4,0],"c":[5]}"#)
        #expect(String(decoding: table, as: UTF8.self) == #"[{"deviceId":"d","opId":"o"},{"deviceId":"d","opId":"p"}]"#)
    }
}
