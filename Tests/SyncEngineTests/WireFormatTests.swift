import Foundation
import SyncProtocol
import Testing

@Suite("SyncProtocol wire types")
struct WireFormatTests {
    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("JSONValue keeps integers integers and compares numbers numerically")
    func jsonValueNumbers() throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(#"{"a":135,"b":1.5,"c":[true,null,"x"]}"#.utf8))
        #expect(value["a"] == .int(135))
        #expect(value["b"] == .double(1.5))
        #expect(value["c"] == [true, nil, "x"])
        #expect(try json(value) == #"{"a":135,"b":1.5,"c":[true,null,"x"]}"#)
        #expect(JSONValue.int(2) == .double(2.0))
        #expect(Set<JSONValue>([.int(2), .double(2.0)]).count == 1)
        #expect(JSONValue.bool(true) != .int(1))
        #expect(value.depth == 2)
    }

    @Test("JSONValue bridges Codable values and encodes canonically")
    func jsonValueBridging() throws {
        let line = OrderLine(sku: "A-1", qty: 2)
        let tree = try JSONValue(encoding: line)
        #expect(tree == ["sku": "A-1", "qty": 2])
        #expect(try tree.decode(as: OrderLine.self) == line)
        let canonical = JSONValue.object(["b": 1, "a": ["y": "/", "x": 2.5]]).canonicalData()
        #expect(String(decoding: canonical, as: UTF8.self) == #"{"a":{"x":2.5,"y":"/"},"b":1}"#)
        let escaped = JSONValue.array(["q\"b\\\n", "é", 2.0, .double(.nan), nil, false]).canonicalData()
        #expect(String(decoding: escaped, as: UTF8.self) == #"["q\"b\\\u000a","é",2,null,null,false]"#)
        #expect(try JSONDecoder().decode(JSONValue.self, from: escaped).arrayValue?[0] == "q\"b\\\n")
    }

    @Test("Every error code of PROTOCOL.md is catalogued with its HTTP status")
    func errorCodes() {
        let expected: [String: Int] = [
            "UNAUTHENTICATED": 401, "ACCOUNT_SUSPENDED": 403, "INVALID_CREDENTIALS": 401, "FORBIDDEN": 403, "PAYLOAD_TOO_LARGE": 413,
            "MALFORMED_JSON": 400, "VALIDATION_FAILED": 400, "UPGRADE_REQUIRED": 426, "MAINTENANCE": 503, "RATE_LIMITED": 429,
            "UNKNOWN_COLLECTION": 400, "UNKNOWN_FIELD": 400, "FIELD_READ_ONLY": 403, "OUT_OF_SCOPE": 403,
            "OCCURRED_AT_OUT_OF_RANGE": 422, "SCHEMA_UNSUPPORTED": 422, "DEPENDENCY_PENDING": 409, "AWAITING_PREDECESSOR": 409,
            "CLIENT_SEQ_REGRESSED": 409, "PREDECESSOR_FAILED": 409, "IDEMPOTENCY_KEY_REUSED": 422, "RECORD_DELETED": 410,
            "RECORD_NOT_FOUND": 404, "RECORD_EXISTS": 409, "RECORD_LOCKED": 409, "TRANSITION_NOT_ALLOWED": 409,
            "FIELD_CONFLICT": 409, "REVIEW_REQUIRED": 409, "CONFLICT_ALREADY_RESOLVED": 409, "CURSOR_INVALID": 400,
            "CURSOR_EXPIRED": 410, "ATTACHMENT_TOO_LARGE": 413, "CHUNK_CHECKSUM_MISMATCH": 422, "CHUNKS_MISSING": 409,
            "FILE_CHECKSUM_MISMATCH": 422, "IDEMPOTENCY_KEY_REQUIRED": 400, "REQUEST_IN_PROGRESS": 409, "ORDER_NOT_SUBMITTED": 409,
            "NOT_FOUND": 404, "METHOD_NOT_ALLOWED": 405, "INTERNAL_ERROR": 500, "UPLOAD_EXPIRED": 410, "ATTACHMENT_MISMATCH": 409,
            "TOO_MANY_UPLOADS": 429, "UPLOAD_INCOMPLETE": 409, "RANGE_NOT_SATISFIABLE": 416, "HEADERS_TOO_LARGE": 431,
            "NOT_IMPLEMENTED": 501, "SERVER_BUSY": 503, "SHUTTING_DOWN": 503, "TOO_MANY_STREAMS": 429, "TOO_MANY_DEFERRED": 429,
        ]
        let known = Set(ErrorCode.allKnown.map(\.rawValue))
        for (code, status) in expected {
            #expect(known.contains(code), "\(code) is missing")
            #expect(ErrorCode(rawValue: code).httpStatus == status, "\(code)")
        }
        #expect(ErrorCode(rawValue: "SOMETHING_NEW").httpStatus == 500)
    }

    @Test("The error envelope matches PROTOCOL.md")
    func envelope() throws {
        let envelope = ErrorEnvelope(code: .validationFailed, message: "too many ops", details: ["field": "ops"])
        #expect(try json(envelope) == #"{"error":{"code":"VALIDATION_FAILED","details":{"field":"ops"},"message":"too many ops"}}"#)
    }

    @Test("A push request decodes from PROTOCOL.md's example and re-encodes creates with old: null")
    func pushRequest() throws {
        let body = #"""
            { "deviceId": "dev-8842", "schemaVersion": 3, "clientSeqRange": {"from": 4101, "to": 4104},
              "ops": [ { "opId": "b3f1", "clientSeq": 4102, "collection": "jobs", "recordId": "job-4471", "type": "update",
                "entityKey": "job-4471", "baseServerSeq": 20701, "occurredAt": "2026-11-03T08:12:00Z",
                "fields": {"status": {"old": "in_progress", "new": "complete"}, "labor_minutes": {"old": 90, "new": 135}},
                "dependsOn": [] } ] }
            """#
        let request = try JSONDecoder().decode(PushRequest.self, from: Data(body.utf8))
        let op = try #require(request.ops.first)
        #expect(op.fields?["labor_minutes"] == FieldChange(old: 90, new: 135))
        #expect(op.baseServerSeq == 20701 && op.type == .update && request.clientSeqRange?.to == 4104)
        #expect(try json(FieldChange(new: "x")) == #"{"new":"x","old":null}"#)
    }

    @Test("An op result omits absent members and encodes missing as ids or numbers")
    func opResult() throws {
        #expect(
            try json(OpResult(opId: "a", status: .applied, serverSeq: 7, recordId: "r"))
                == #"{"opId":"a","recordId":"r","serverSeq":7,"status":"applied"}"#)
        let seqs = OpResult(opId: "b", status: .deferred, code: .awaitingPredecessor, missing: .clientSeqs([4, 5]))
        #expect(try json(seqs) == #"{"code":"AWAITING_PREDECESSOR","missing":[4,5],"opId":"b","status":"deferred"}"#)
        let atts = OpResult(opId: "c", status: .deferred, code: .dependencyPending, missing: .attachments(["att-1"]))
        #expect(try JSONDecoder().decode(OpResult.self, from: Data(try json(atts).utf8)) == atts)
        #expect(try JSONDecoder().decode(OpResult.self, from: Data(try json(seqs).utf8)) == seqs)
        let conflict = FieldConflict(
            field: "status", clientOld: "in_progress", clientNew: "complete", serverCurrent: "on_hold", serverSeq: 9, winner: .server)
        #expect(
            try json(conflict)
                == #"{"clientNew":"complete","clientOld":"in_progress","field":"status","serverCurrent":"on_hold","serverSeq":9,"winner":"server"}"#)
    }

    @Test("Pull changes encode upserts, tombstones, removes and conflict flags as PROTOCOL.md shows")
    func pullChanges() throws {
        let upsert = Change(
            collection: "jobs", recordId: "j", serverSeq: 3, type: .upsert, payload: ["a": 1], fieldMeta: ["a": FieldMeta(seq: 3)],
            schemaVersion: 3, conflict: .init(id: "c-1"))
        #expect(
            try json(upsert)
                == #"{"collection":"jobs","conflict":{"id":"c-1","state":"open"},"fieldMeta":{"a":{"seq":3}},"payload":{"a":1},"recordId":"j","schemaVersion":3,"serverSeq":3,"type":"upsert"}"#
        )
        let delete = Change(collection: "jobs", recordId: "k", serverSeq: 4, type: .delete, tombstone: .init(deletedServerSeq: 4))
        #expect(try json(delete) == #"{"collection":"jobs","recordId":"k","serverSeq":4,"tombstone":{"deletedServerSeq":4},"type":"delete"}"#)
    }

    @Test("AppVersion parses semver, orders versions and rejects garbage")
    func appVersion() throws {
        #expect(AppVersion("2.3") == AppVersion("2.3.0"))
        #expect(try #require(AppVersion("2.3.0")) < #require(AppVersion("2.10.0")))
        #expect(try #require(AppVersion("2.0.0-beta.2")) < #require(AppVersion("2.0.0")))
        #expect(try #require(AppVersion("2.0.0-beta.2")) < #require(AppVersion("2.0.0-beta.10")))
        #expect(AppVersion("2.3.0+build.7")?.description == "2.3.0")
        for garbage in ["", "2", "two", "2.x", "2.3.0.1", "2..3", "-1.0", "2.3-"] {
            #expect(AppVersion(garbage) == nil, "\(garbage)")
        }
        #expect(try JSONDecoder().decode([AppVersion].self, from: Data(#"["1.2"]"#.utf8)) == [AppVersion(major: 1, minor: 2)])
    }

    @Test("Device-chosen ids follow PROTOCOL.md's alphabet and length")
    func identifiers() {
        #expect(DeviceIdentifier.isValid("b3f1e0c2-0a1d-4c7e-9f21-2a6d5b1c8e40"))
        #expect(DeviceIdentifier.isValid("a.b_c:d-1"))
        #expect(!DeviceIdentifier.isValid(""))
        #expect(!DeviceIdentifier.isValid("has space"))
        #expect(!DeviceIdentifier.isValid("é"))
        #expect(!DeviceIdentifier.isValid(String(repeating: "x", count: 129)))
    }
}

@Suite("Hand-written wire JSON")
struct HandWrittenWireJSONTests {
    @Test("OpResult, FieldConflict and PushOp jsonValue equal their Codable JSON")
    func matchesCodable() throws {
        let conflict = FieldConflict(
            field: "status", clientOld: "in_progress", clientNew: "complete", serverCurrent: nil, serverSeq: 7, winner: .server)
        let results = [
            OpResult(opId: "a", status: .applied, serverSeq: 3, recordId: "r"),
            OpResult(
                opId: "b", status: .conflict, code: .fieldConflict, message: "m", serverSeq: 4, recordId: "r", replayed: true,
                conflicts: [conflict], appliedFields: ["notes"], conflictId: "c-1", tombstoneSeq: 2, details: ["blockedBy": "x"]),
            OpResult(opId: "c", status: .deferred, code: .awaitingPredecessor, missing: .clientSeqs([1, 2])),
            OpResult(opId: "d", status: .deferred, code: .dependencyPending, missing: .attachments(["att-1"])),
        ]
        for result in results {
            #expect(result.jsonValue == (try JSONValue(encoding: result)))
        }
        let op = PushOp(
            opId: "o", clientSeq: 9, collection: "jobs", recordId: "j", type: .update, entityKey: "e", baseServerSeq: 5,
            occurredAt: "2026-11-03T08:12:00Z", fields: ["status": FieldChange(old: nil, new: "done")], dependsOn: ["att-1"], resolves: "c-1")
        #expect(op.jsonValue == (try JSONValue(encoding: op)))
        let minimal = PushOp(opId: "p", clientSeq: 1, collection: "jobs", recordId: "j", type: .delete, occurredAt: "2026-11-03T08:12:00Z")
        #expect(minimal.jsonValue == (try JSONValue(encoding: minimal)))
    }
}
