import Foundation
import Testing

@testable import SyncProtocol

@Suite("JSONValue's own parser and the quick readers of wire types")
struct JSONParsingTests {
    private func decoded(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// Whether the parser answers (spelled out: `JSONValue` is itself `nil`-literal expressible).
    private func accepts(_ text: String) -> Bool { JSONValue(parsing: text).map { _ in true } ?? false }

    private func accepts(_ data: Data) -> Bool { JSONValue(parsing: data).map { _ in true } ?? false }

    /// Equal in the strict sense: same cases all the way down (`==` compares numbers numerically).
    private func identical(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.int(let a)?, .int(let b)?): a == b
        case (.double(let a)?, .double(let b)?): a == b
        case (.array(let a)?, .array(let b)?): a.count == b.count && zip(a, b).allSatisfy { identical($0, $1) }
        case (.object(let a)?, .object(let b)?): a.keys == b.keys && a.allSatisfy { identical($0.value, b[$0.key]) }
        case (let a?, let b?): a == b && a.canonicalData() == b.canonicalData()
        default: false
        }
    }

    @Test("whatever it parses equals what JSONDecoder decodes, down to int versus double")
    func agreesWithJSONDecoder() {
        let texts = [
            #"{"a": [1, 2.5, "x", true, false, null], "b": {"c": -0, "d": 5.0, "e": 2.50, "f": -12.75}}"#,
            #"  [ ]  "#, "{}", "0", "-1", "9223372036854775807", "-9223372036854775808", "123.456",
            #""plain""#, #""q\"b\\\/\b\f\n\r\t""#, #""\u00e9\u20ac \ud83d\ude00 é€😀""#, #"{"nested": [[[{"x": [1]}]]]}"#,
        ]
        for text in texts {
            let parsed = JSONValue(parsing: text)
            #expect(accepts(text), "declined \(text)")
            #expect(identical(parsed, decoded(text)), "\(text)")
            #expect(identical(JSONValue(parsing: Data(text.utf8)), parsed))
        }
    }

    @Test("declines invalid JSON and what it leaves to JSONDecoder")
    func declines() {
        let texts = [
            "", "{", "[1,]", "[1 2]", #"{"a" 1}"#, #"{"a":1,}"#, "01", "1.", ".5", "-", "+1", "1e2", "2.5E-3", "tru", "nul",
            #""unterminated"#, "\"tab\tinside\"", #""\x""#, #""\ud800""#, #""\udc00x""#, #""\u0000""#, #"{"a":1,"a":2}"#,
            "9223372036854775808", "12345678901234567.0", "[1] 2", "NaN",
            String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        ]
        for text in texts {
            #expect(!accepts(text), "accepted \(text)")
        }
        #expect(!accepts(Data([0x22, 0xFF, 0x22])), "invalid UTF-8")
        #expect(accepts(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)))
    }

    @Test("a push body reads the same quickly as with JSONDecoder, every property included")
    func pushRequestAgrees() throws {
        let op = PushOp(
            opId: "op-1", clientSeq: 7, collection: "jobs", recordId: "job-1", type: .update, entityKey: "job-1", baseServerSeq: 41,
            occurredAt: "2026-11-03T08:12:00Z",
            fields: [
                "status": FieldChange(old: "in_progress", new: "complete"), "notes": FieldChange(old: nil, new: nil), "n": FieldChange(new: 2.5),
            ],
            dependsOn: ["att-1"], resolves: "c-1")
        // A sample with every property set: a property added to PushOp but not to the quick reader shows here.
        #expect(
            Mirror(reflecting: op).children.allSatisfy { child in
                guard let optional = child.value as? any OptionalProtocol else { return true }
                return optional.isSome
            })
        let request = PushRequest(
            deviceId: "dev-1", schemaVersion: 3, clientSeqRange: ClientSeqRange(from: 7, to: 8),
            ops: [
                op, PushOp(opId: "op-2", clientSeq: 8, collection: "jobs", recordId: "job-2", type: .delete, occurredAt: "2026-11-03T08:13:00Z"),
            ])
        let body = try JSONEncoder().encode(request)
        #expect(PushRequest(quickly: body) == request)
        #expect(PushRequest(quickly: body) == (try JSONDecoder().decode(PushRequest.self, from: body)))
        let spelledOut =
            Data(#"{"deviceId":"d","schemaVersion":3.0,"ops":[{"opId":"o","clientSeq":1,"collection":"jobs","#.utf8)
            + Data(#""recordId":"r","type":"create","occurredAt":"t","entityKey":null,"fields":{"a":{"new":null}},"extra":1}]}"#.utf8)
        #expect(PushRequest(quickly: spelledOut) == (try JSONDecoder().decode(PushRequest.self, from: spelledOut)))
    }

    @Test("a push body read straight from its bytes agrees with reading its JSONValue tree, whatever the body")
    func pushRequestDirectAgrees() {
        let op =
            #"{"opId":"o","clientSeq":1,"collection":"c","recordId":"r","type":"update","occurredAt":"t","baseServerSeq":4,"#
            + #""fields":{"a":{"old":1,"new":[2,{"x":null}]},"b":{"new":"é"}},"dependsOn":["att-1"],"resolves":null,"entityKey":"e"}"#
        func body(_ ops: String, extra: String = "") -> String {
            #"{"deviceId":"d","schemaVersion":3,"clientSeqRange":{"from":1,"to":2},"ops":[\#(ops)]\#(extra)}"#
        }
        let deep = String(repeating: "[", count: 58) + String(repeating: "]", count: 58)
        let deeper = String(repeating: "[", count: 59) + String(repeating: "]", count: 59)
        let bodies = [
            body(op), body("\(op), \(op)"), body(""), " \n" + body(op) + " \t", body(op, extra: #","extra":{"k":[1,2]}"#),
            body(op, extra: #","ops":[]"#), body(op, extra: #","deviceId":"e""#), body(op, extra: #","extra":1,"extra":2"#),
            body(op.replacingOccurrences(of: #""opId":"o","#, with: #""opId":"o","opId":"p","#)),
            body(op.replacingOccurrences(of: #""x":null"#, with: #""x":null,"x":1"#)),
            body(op.replacingOccurrences(of: #""resolves":null"#, with: #""unknown":{"a":1,"a":2}"#)),
            body(op.replacingOccurrences(of: #""resolves":null"#, with: #""unknown":\#(deep)"#)),
            body(op.replacingOccurrences(of: #""resolves":null"#, with: #""unknown":\#(deeper)"#)),
            body(op.replacingOccurrences(of: #""clientSeq":1"#, with: #""clientSeq":1.0"#)),
            body(op.replacingOccurrences(of: #""clientSeq":1"#, with: #""clientSeq":"1""#)),
            body(op.replacingOccurrences(of: #""type":"update""#, with: #""type":"move""#)),
            body(op.replacingOccurrences(of: #""fields":"#, with: #""fields":null,"f":"#)),
            body(op) + "x", body(op).replacingOccurrences(of: "[", with: "{"), #"{"deviceId":"d","schemaVersion":3,"ops":{}}"#,
            #"{"deviceId":"d","schemaVersion":3,"ops":[1]}"#, #"{"deviceId":"d","schemaVersion":3,"ops":[]"#, "[]", "",
            #"{"deviceId":"d","schemaVersion":3,"ops":[],"clientSeqRange":null}"#, #"{"schemaVersion":3,"ops":[]}"#,
        ]
        for text in bodies {
            let viaTree = JSONValue(parsing: Data(text.utf8)).flatMap(PushRequest.init(json:))
            #expect(PushRequest(quickly: Data(text.utf8)) == viaTree, "\(text)")
        }
        #expect(PushRequest(quickly: Data(body(op).utf8))?.ops.first?.fields?["a"]?.new == [2, ["x": nil]])
    }

    @Test("a push body that is not a well-formed request is left to JSONDecoder")
    func pushRequestDeclines() {
        let bodies = [
            #"{"deviceId":"d","schemaVersion":3}"#, #"{"deviceId":1,"schemaVersion":3,"ops":[]}"#,
            #"{"deviceId":"d","schemaVersion":3,"ops":[{"opId":"o"}]}"#,
            #"{"deviceId":"d","schemaVersion":3,"ops":[],"clientSeqRange":{"from":1}}"#,
            #"{"deviceId":"d","schemaVersion":3,"ops":[{"opId":"o","clientSeq":1,"collection":"c","recordId":"r","type":"move","occurredAt":"t"}]}"#,
            #"{"deviceId":"d","schemaVersion":3,"ops":[{"opId":"o","clientSeq":1,"collection":"c","recordId":"r","type":"create","occurredAt":"t","fields":{"a":{"old":1}}}]}"#,
        ]
        for body in bodies {
            #expect(PushRequest(quickly: Data(body.utf8)) == nil, "accepted \(body)")
        }
        #expect(PushRequest(quickly: Data(#"{"deviceId":"d","schemaVersion":3,"ops":[]}"#.utf8)) != nil)
    }

    @Test("a stored op result reads the same quickly as with JSONDecoder, every property included")
    func opResultAgrees() throws {
        let result = OpResult(
            opId: "op-1", status: .conflict, code: .validationFailed, message: "m", serverSeq: 41, recordId: "job-1", replayed: true,
            conflicts: [
                FieldConflict(field: "status", clientOld: "a", clientNew: "b", serverCurrent: "c", serverSeq: 40, winner: .server),
                FieldConflict(field: "notes", clientOld: nil, clientNew: .null, serverCurrent: nil, serverSeq: 39),
            ],
            appliedFields: ["title"], conflictId: "c-1", missing: .clientSeqs([3, 4]), tombstoneSeq: 12,
            details: ["field": "status", "n": 2.5])
        // A sample with every property set: a property added to OpResult but not to the quick reader shows here.
        #expect(
            Mirror(reflecting: result).children.allSatisfy { child in
                guard let optional = child.value as? any OptionalProtocol else { return true }
                return optional.isSome
            })
        let variants = [
            result, OpResult(opId: "op-2", status: .deferred, missing: .attachments(["att-1"])),
            OpResult(opId: "op-3", status: .deferred, missing: .attachments([])), OpResult(opId: "op-4", status: .applied, serverSeq: 9),
        ]
        for variant in variants {
            let stored = try JSONEncoder().encode(variant)
            let quick = try #require(JSONValue(parsing: stored).flatMap(OpResult.init(json:)), "declined \(variant)")
            let decoded = try JSONDecoder().decode(OpResult.self, from: stored)
            #expect(quick == variant && quick == decoded)
            #expect(JSONValue(parsing: variant.jsonValue.canonicalData()).flatMap(OpResult.init(json:)) == variant)
        }
        let spelledOut = Data(#"{"opId":"o","status":"applied","code":null,"missing":[],"extra":1}"#.utf8)
        let decoded = try JSONDecoder().decode(OpResult.self, from: spelledOut)
        #expect(JSONValue(parsing: spelledOut).flatMap(OpResult.init(json:)) == decoded)
    }

    @Test("a stored op result that is not well formed is left to JSONDecoder")
    func opResultDeclines() {
        let texts = [
            #"{"status":"applied"}"#, #"{"opId":"o","status":"lost"}"#, #"{"opId":"o","status":"applied","serverSeq":"1"}"#,
            #"{"opId":"o","status":"deferred","missing":[1,"a"]}"#, #"{"opId":"o","status":"applied","replayed":1}"#,
            #"{"opId":"o","status":"conflict","conflicts":[{"field":"f","serverSeq":1}]}"#, #"{"opId":"o","status":"applied","details":[]}"#,
        ]
        for text in texts {
            #expect(JSONValue(parsing: text).flatMap(OpResult.init(json:)) == nil, "accepted \(text)")
        }
    }

    @Test("stored field metadata reads with optional device and op ids")
    func fieldMeta() {
        #expect(FieldMeta(json: ["seq": 4, "opId": "o", "deviceId": "d"]) == FieldMeta(seq: 4, opId: "o", deviceId: "d"))
        #expect(FieldMeta(json: ["seq": 4, "opId": nil]) == FieldMeta(seq: 4))
        #expect(FieldMeta(json: ["seq": 4.5]) == nil)
        #expect(FieldMeta(json: ["opId": "o"]) == nil)
    }
}

/// Lets the sample check see through `Any` whether an optional property is set.
private protocol OptionalProtocol {
    var isSome: Bool { get }
}

extension Optional: OptionalProtocol {
    var isSome: Bool { self != nil }
}
