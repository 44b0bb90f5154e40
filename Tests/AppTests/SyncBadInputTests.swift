import AppTesting
import Foundation
import Postgres
import SyncProtocol
import Testing

/// Bad push and pull requests over HTTP: each gets its precise code and writes nothing.
@Suite("Sync bad input over HTTP")
struct SyncBadInputTests {
    /// A push body as raw text, with the device's headers and token.
    private static func sendRaw(_ device: SyncDevice, _ body: String) async throws -> TestResponse {
        var headers = device.headers
        headers["Content-Type"] = "application/json"
        return try await device.server.client.send("POST", "/v1/sync/push", body: Data(body.utf8), headers: headers, token: device.token)
    }

    /// A one-op push body with `op` spliced in as raw JSON.
    private static func body(_ device: SyncDevice, op: String) -> String {
        #"{"deviceId": "\#(device.deviceId)", "schemaVersion": 3, "ops": [\#(op)]}"#
    }

    private static let now = RFC3339.string(from: Date().addingTimeInterval(-60))

    @Test("A body that is not JSON is 400 MALFORMED_JSON", arguments: ["{\"deviceId\": ", "not json", "{\"ops\": [}"])
    func malformedJSON(text: String) async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()

        let response = try await Self.sendRaw(ana, text)

        #expect(response.status == 400 && response.errorCode == "MALFORMED_JSON")
        #expect(try server.syncTableCounts() == counts)
    }

    @Test("A field value nested deeper than 64 levels is 400 MALFORMED_JSON; 60 levels are an ordinary value")
    func nestedTooDeep() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        func nested(_ depth: Int) -> JSONValue { (0..<depth).reduce(JSONValue.array([])) { inner, _ in .array([inner]) } }
        let counts = try server.syncTableCounts()

        let deep = try await ana.send([ana.op(.create, "reports", "rep-1", ["assignmentId": "a", "answers": ["a": nested(70)]], seq: 1)])
        #expect(deep.status == 400 && deep.errorCode == "MALFORMED_JSON")
        #expect(try server.syncTableCounts() == counts)

        let fine = try await ana.push1(ana.op(.create, "reports", "rep-1", ["assignmentId": "a", "answers": ["a": nested(55)]], seq: 1))
        #expect(fine.status == .applied)
    }

    @Test("A body over 1 MiB is 413 PAYLOAD_TOO_LARGE (a huge string or a huge array), and nothing is written")
    func payloadTooLarge() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()
        let hugeString = ana.create("jobs", "job-1", ["title": .string(String(repeating: "x", count: (1 << 20) + 1_000))])
        let hugeArray = ana.create(
            "reports", "rep-1", ["assignmentId": "a", "answers": [:], "photos": .array(Array(repeating: "att-000000000", count: 70_000))])

        for op in [hugeString, hugeArray] {
            // As a client sending a large body should: wait for the server's go-ahead, so the early
            // 413 is read instead of the send failing on the connection the server closes.
            let response = try await ana.send(
                PushRequest(deviceId: ana.deviceId, schemaVersion: 3, ops: [op]), headers: ["Expect": "100-continue"])
            #expect(response.status == 413 && response.errorCode == "PAYLOAD_TOO_LARGE")
        }
        #expect(try server.syncTableCounts() == counts)
        // Just under the limit is an ordinary op.
        let large = ana.op(.create, "jobs", "job-2", ["title": "t", "notes": .string(String(repeating: "y", count: 900_000))], seq: 1)
        #expect(try await ana.push1(large).status == .applied)
    }

    /// `ops` members of the wrong shape (NOW stands for a valid `occurredAt`), and the member named.
    private static let misshapenOps: [(String, String)] = [
        (#""ops": {}"#, "ops"),
        (
            #""ops": [{"opId": "o1", "clientSeq": "one", "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW"}]"#,
            "ops[0].clientSeq"
        ),
        (
            #""ops": [{"opId": "o1", "clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "upsert", "occurredAt": "NOW"}]"#,
            "ops[0].type"
        ),
        (#""ops": [{"clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW"}]"#, "ops[0].opId"),
        (
            #""ops": [{"opId": "o1", "clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW", "fields": {"title": "bare"}}]"#,
            "ops[0].fields.title"
        ),
        (
            #""ops": [{"opId": "o1", "clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW", "fields": []}]"#,
            "ops[0].fields"
        ),
        (
            #""ops": [{"opId": "o 1", "clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW"}]"#,
            "ops[0].opId"
        ),
        (
            #""ops": [{"opId": "o1", "clientSeq": 0, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW"}]"#,
            "ops[0].clientSeq"
        ),
        (
            #""ops": [{"opId": "o1", "clientSeq": 1, "collection": "jobs", "recordId": "j/1", "type": "create", "occurredAt": "NOW"}]"#,
            "ops[0].recordId"
        ),
        (
            #""ops": [{"opId": "o1", "clientSeq": 1, "collection": "jobs", "recordId": "j1", "type": "create", "occurredAt": "NOW", "dependsOn": ["att 1"]}]"#,
            "ops[0].dependsOn"
        ),
        (
            #""ops": ["#
                + (1...51).map {
                    #"{"opId": "o\#($0)", "clientSeq": \#($0), "collection": "jobs", "recordId": "j\#($0)", "type": "create", "occurredAt": "NOW", "fields": {"title": {"new": "t"}}}"#
                }
                .joined(separator: ", ") + "]",
            "ops"
        ),
    ]

    @Test("A request of the wrong shape is 400 VALIDATION_FAILED naming the offending member")
    func wrongShape() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()

        for (ops, field) in Self.misshapenOps {
            let text = #"{"deviceId": "\#(ana.deviceId)", "schemaVersion": 3, \#(ops.replacingOccurrences(of: "NOW", with: Self.now))}"#
            let response = try await Self.sendRaw(ana, text)
            #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED", "\(field)")
            #expect(try response.errorEnvelope().error.details?["field"] == .string(field))
        }
        #expect(try server.syncTableCounts() == counts)
    }

    @Test("A missing schemaVersion, a body that is not an object, or duplicate opIds or clientSeqs are 400 VALIDATION_FAILED")
    func wrongRequest() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()
        let op = ana.create("jobs", "job-1", ["title": "t"])
        var sameId = ana.create("jobs", "job-2", ["title": "t"])
        sameId.opId = op.opId
        var sameSeq = ana.create("jobs", "job-3", ["title": "t"])
        sameSeq.clientSeq = op.clientSeq

        let missingVersion = try await Self.sendRaw(ana, #"{"deviceId": "\#(ana.deviceId)", "ops": []}"#)
        let array = try await Self.sendRaw(ana, "[]")
        let twiceId = try await ana.send([op, sameId])
        let twiceSeq = try await ana.send([op, sameSeq])

        #expect(try missingVersion.errorEnvelope().error.details?["field"] == "schemaVersion")
        #expect(try twiceId.errorEnvelope().error.details?["field"] == "ops[1].opId")
        #expect(try twiceSeq.errorEnvelope().error.details?["field"] == "ops[1].clientSeq")
        for response in [missingVersion, array, twiceId, twiceSeq] {
            #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED")
        }
        #expect(try server.syncTableCounts() == counts)
    }

    @Test("A push whose deviceId is not the token's device is 400 VALIDATION_FAILED on deviceId, and nothing is written")
    func deviceIdMismatch() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let ben = try await server.device()
        let counts = try server.syncTableCounts()

        let foreign = try await ana.send(
            PushRequest(deviceId: ben.deviceId, schemaVersion: 3, ops: [ana.create("jobs", "job-1", ["title": "t"])]))
        let malformed = try await ana.send(PushRequest(deviceId: "dev 1", schemaVersion: 3, ops: []))

        for response in [foreign, malformed] {
            #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED")
            #expect(try response.errorEnvelope().error.details?["field"] == "deviceId")
        }
        #expect(try server.syncTableCounts() == counts)
    }

    @Test("Sync calls without a valid bearer token are 401 UNAUTHENTICATED")
    func unauthenticated() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let body = PushRequest(deviceId: ana.deviceId, schemaVersion: 3, ops: [ana.create("jobs", "job-1", ["title": "t"])])

        let responses = [
            try await server.client.post("/v1/sync/push", json: body, headers: ana.headers),
            try await server.client.post("/v1/sync/push", json: body, headers: ana.headers, token: "not-a-token"),
            try await server.client.get("/v1/sync/pull", headers: ana.headers),
            try await server.client.get("/v1/conflicts", headers: ana.headers, token: "x"),
        ]

        #expect(responses.allSatisfy { $0.status == 401 && $0.errorCode == "UNAUTHENTICATED" })
        #expect(try server.scalar("SELECT count(*) FROM records") == 0)
    }

    @Test("A delete carrying fields, or an update without any, is rejected VALIDATION_FAILED on fields")
    func opShape() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let seq = try await ana.applied(ana.create("jobs", "job-1", ["title": "t"]))
        var delete = ana.delete("jobs", "job-1", base: seq)
        delete.fields = ["title": FieldChange(new: "x")]

        let results = try await ana.pushEach([delete, ana.update("jobs", "job-1", [:], base: seq)])

        #expect(results.allSatisfy { $0.status == .rejected && $0.code == .validationFailed && $0.details?["field"] == "fields" })
        #expect(try server.storedRecord("jobs", "job-1")?.serverSeq == seq)
    }

    @Test("A string holding U+0000, which PostgreSQL cannot store, is 400 VALIDATION_FAILED naming it, not retried forever")
    func nulCharacter() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()
        let inValue = ana.op(.create, "jobs", "job-1", ["title": "before\u{0}after"], seq: 1)
        let nested = ana.op(.create, "reports", "rep-1", ["assignmentId": "a", "answers": ["q": ["x\u{0}"]]], seq: 1)
        let inCollection = ana.op(.create, "jobs\u{0}", "job-1", ["title": "t"], seq: 1)
        let inOld = ana.op(.update, "jobs", "job-1", ["notes": "n"], base: 1, old: ["notes": "\u{0}"], seq: 1)

        for (op, field) in [
            (inValue, "ops[0].fields.title"), (nested, "ops[0].fields.answers"), (inCollection, "ops[0].collection"),
            (inOld, "ops[0].fields.notes"),
        ] {
            let response = try await ana.send([op])
            #expect(response.status == 400 && response.errorCode == "VALIDATION_FAILED")
            #expect(try response.errorEnvelope().error.details?["field"] == .string(field))
        }
        #expect(try server.syncTableCounts() == counts)
        #expect(try await ana.push1(ana.op(.create, "jobs", "job-1", ["title": "clean"], seq: 1)).status == .applied)
    }

    @Test(
        "A push's Idempotency-Key that is blank, too long or not visible ASCII is 400 naming the header; a good one is accepted",
        arguments: [
            (String(repeating: "k", count: 256), 400), ("key with spaces", 400), ("clé", 400), ("batch-42", 200),
        ])
    func pushIdempotencyKey(key: String, status: Int) async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device()
        let counts = try server.syncTableCounts()

        let response = try await ana.send(
            PushRequest(deviceId: ana.deviceId, schemaVersion: 3, ops: [ana.create("jobs", "job-1", ["title": "t"])]),
            headers: ["Idempotency-Key": key])

        #expect(response.status == status, "\(response)")
        if status == 400 {
            #expect(try response.errorEnvelope().error.details?["field"] == "Idempotency-Key")
            #expect(try server.syncTableCounts() == counts)
        }
    }
}
