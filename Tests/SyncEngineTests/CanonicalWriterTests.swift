import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// The hand-written canonical writers must give the bytes the `JSONValue` trees give: stored op
/// bodies and results are read back, and fingerprints in the op log must keep matching.
@Suite("Canonical JSON written member by member")
struct CanonicalWriterTests {
    private let sample = PushOp(
        opId: "op-1", clientSeq: 7, collection: "jobs", recordId: "job-1", type: .update, baseServerSeq: 40,
        occurredAt: "2026-12-01T10:00:00Z",
        fields: ["status": FieldChange(old: "a", new: "b"), "notes": FieldChange(new: .null), "é": FieldChange(new: 2.0)],
        dependsOn: ["att-2", "att-1", "att-2"], resolves: "c-1")

    private func written(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("an op's fingerprint is the canonical JSON it always was")
    func fingerprintPinned() throws {
        let processor = PushProcessor(schema: try .builtIn())
        #expect(
            processor.fingerprint(of: sample)
                == #"{"baseServerSeq":40,"clientSeq":7,"collection":"jobs","dependsOn":["att-1","att-2"],"entityKey":"job-1","#
                + #""fields":{"notes":{"new":null,"old":null},"status":{"new":"b","old":"a"},"é":{"new":2,"old":null}},"#
                + #""occurredAt":"2026-12-01T10:00:00Z","opId":"op-1","recordId":"job-1","resolves":"c-1","type":"update"}"#)
        var bare = sample
        (bare.fields, bare.dependsOn, bare.resolves, bare.baseServerSeq) = ([:], [], nil, nil)
        #expect(
            processor.fingerprint(of: bare)
                == #"{"clientSeq":7,"collection":"jobs","entityKey":"job-1","occurredAt":"2026-12-01T10:00:00Z","opId":"op-1","#
                + #""recordId":"job-1","type":"update"}"#)
    }

    @Test("an op's body is written as its JSONValue form")
    func pushOp() {
        var withKey = sample
        withKey.entityKey = "site-\"9\""
        let ops = [sample, withKey, PushOp(opId: "o", clientSeq: 1, collection: "c", recordId: "r", type: .delete, occurredAt: "t")]
        for op in ops {
            #expect(written(op.writeCanonical) == String(decoding: op.jsonValue.canonicalData(), as: UTF8.self))
        }
    }

    @Test("a result is written as its JSONValue form, every property included")
    func opResult() {
        let results = [
            OpResult(
                opId: "op-1", status: .conflict, code: .validationFailed, message: "m\n", serverSeq: 41, recordId: "job-1", replayed: true,
                conflicts: [FieldConflict(field: "status", clientOld: "a", clientNew: "b", serverCurrent: "c", serverSeq: 40, winner: .server)],
                appliedFields: ["title"], conflictId: "c-1", missing: .clientSeqs([3, 4]), tombstoneSeq: 12, details: ["field": "status"]),
            OpResult(opId: "op-2", status: .deferred, missing: .attachments(["att-1"])), OpResult(opId: "op-3", status: .applied, serverSeq: 9),
        ]
        for result in results {
            #expect(written(result.writeCanonical) == String(decoding: result.jsonValue.canonicalData(), as: UTF8.self))
        }
    }
}
