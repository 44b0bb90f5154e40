import AppTesting
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// Every number a device sends, at the edges of the types a server keeps numbers in, in every
/// numeric member of every JSON endpoint, in numeric query parameters, path segments and
/// headers: each answer is a 4xx with the error envelope (or a 2xx where the value is valid),
/// and the server still serves afterwards.
@Suite("Boundary numbers in every numeric input never crash or wedge the server", .serialized)
struct BoundaryNumberTests {
    /// JSON literals: integer edges of Int32, of the exact range of a double and of Int64, a
    /// double at the top of its range, and numbers written as strings.
    static let jsonEdges = [
        "0", "-1", "2147483648", "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "1e308", "-1e308", "1.5", "\"NaN\"", "\"Infinity\"", "\"12\"",
    ]
    /// The same edges as query, path and header text.
    static let textEdges = [
        "0", "-1", "2147483648", "9007199254740993", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "99999999999999999999", "1e308", "NaN", "+1", "0x10", "",
    ]

    @Test("Boundary numbers in every numeric JSON member answer 4xx (or 2xx where valid) with the envelope")
    func jsonMembers() async throws {
        let server = try await Self.start()
        defer { server.finish() }
        let field = try await server.device(.field, team: "north")
        var probe = Probe(device: field)
        for endpoint in JSONEndpoint.all {
            for slot in endpoint.slots.keys.sorted() {
                for edge in Self.jsonEdges {
                    let answer = try await probe.send(endpoint, slot: slot, value: edge)
                    let isInteger = edge.allSatisfy { $0 == "-" || $0.isNumber } && Int64(edge) != nil
                    let mayPass = isInteger || endpoint.freeSlots.contains(slot)
                    try Self.check(answer, "\(endpoint.path) \(slot) = \(edge)", mayPass: mayPass)
                }
            }
        }
        try await Self.expectServing(server, field)
    }

    @Test("Boundary numbers in query parameters, path segments and headers answer 4xx (or 2xx where valid)")
    func textInputs() async throws {
        let server = try await Self.start()
        defer { server.finish() }
        let field = try await server.device(.field, team: "north")
        let attId = "att-edge"
        try await field.upload(Data((0..<1000).map { UInt8($0 % 251) }), attId: attId)
        // Path and query text is percent-encoded; header text goes as it is.
        func url(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: Self.urlSafe) ?? text }
        let inputs: [(String, (String) -> (path: String, headers: [String: String], method: String))] = [
            ("pull limit", { ("/v1/sync/pull?limit=\(url($0))", [:], "GET") }),
            ("assignments since", { ("/v1/assignments?since=\(url($0))", [:], "GET") }),
            ("conflicts state", { ("/v1/conflicts?state=\(url($0))", [:], "GET") }),
            ("chunk index", { ("/v1/attachments/\(attId)/chunks/\(url($0))", ["X-Chunk-SHA256": String(repeating: "0", count: 64)], "PUT") }),
            ("Range first", { ("/v1/attachments/\(attId)/content", ["Range": "bytes=\($0)-"], "GET") }),
            ("Range last", { ("/v1/attachments/\(attId)/content", ["Range": "bytes=0-\($0)"], "GET") }),
            ("Range suffix", { ("/v1/attachments/\(attId)/content", ["Range": "bytes=-\($0)"], "GET") }),
            ("X-App-Version", { ("/v1/sync/pull", ["X-App-Version": "\($0).0.0"], "GET") }),
            ("order id", { ("/v1/orders/\(url($0))/confirm", [:], "POST") }),
        ]
        for (name, make) in inputs {
            for edge in Self.textEdges {
                let (path, headers, method) = make(edge)
                let answer = try await field.server.client.send(
                    method, path, body: method == "GET" ? nil : Data(), headers: field.headers.merging(headers) { $1 }, token: field.token)
                try Self.check(answer, "\(name) = \(edge)", mayPass: true)
            }
        }
        try await Self.expectServing(server, field)
    }

    static let urlSafe = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-."))

    // MARK: - Checks

    /// A 2xx only where the value may be valid, else a 4xx carrying the error envelope; never a 5xx.
    static func check(_ answer: TestResponse, _ what: String, mayPass: Bool) throws {
        #expect((200..<500).contains(answer.status), "\(what): \(answer)")
        if answer.status >= 400 {
            #expect(answer.errorCode != nil, "\(what): no error envelope: \(answer)")
        } else {
            #expect(mayPass, "\(what) was accepted: \(answer)")
        }
    }

    /// The server answers its health check and applies an ordinary push.
    static func expectServing(_ server: TestServer, _ device: SyncDevice) async throws {
        #expect(try await server.client.get("/v1/health").status == 200)
        let sibling = try await device.sibling()
        #expect(try await sibling.push1(sibling.create("jobs", "job-after-\(SyncDevice.shortId())", ["title": "t"])).status == .applied)
    }

    static func start() async throws -> TestServer {
        let server = try await TestServer.startSync()
        // Hundreds of calls from one device: the rate limit is not what is tested here.
        try server.updateSettings {
            $0.deviceRequestsPerSecond = 10_000
            $0.deviceRequestBurst = 10_000
        }
        return server
    }
}

/// A JSON endpoint with a body template: each `$slot` is a numeric member, `$n` a counter
/// that keeps ids fresh, `$dev` the device id, `$now` the current time.
struct JSONEndpoint {
    var path: String
    var body: String
    /// Each numeric slot and its ordinary value.
    var slots: [String: String]
    /// Slots whose value is the device's data (a record field, a report answer), which may be
    /// any JSON: a push answers a wrong type per op, inside a 200.
    var freeSlots: Set<String> = []
    var extraHeaders: [String: String] = [:]

    static let all = [
        JSONEndpoint(
            path: "/v1/sync/push",
            body: #"{"deviceId":"$dev","schemaVersion":$schemaVersion,"clientSeqRange":{"from":$from,"to":$to},"ops":[{"opId":"op-$n","#
                + #""clientSeq":$clientSeq,"collection":"jobs","recordId":"job-$n","type":"update","baseServerSeq":$baseServerSeq,"#
                + #""occurredAt":"$now","fields":{"labor_minutes":{"old":$old,"new":$new}}}]}"#,
            slots: ["schemaVersion": "3", "from": "1", "to": "1", "clientSeq": "$seq", "baseServerSeq": "0", "old": "1", "new": "2"],
            freeSlots: ["old", "new"]),
        JSONEndpoint(
            path: "/v1/reports/sync",
            body: #"{"deviceId":"$dev","schemaVersion":$schemaVersion,"reports":[{"localId":"r-$n","assignmentId":"a-1","#
                + #""payload":{"photoCount":$photoCount},"baseRevision":$baseRevision}]}"#,
            slots: ["schemaVersion": "3", "photoCount": "1", "baseRevision": "0"], freeSlots: ["photoCount"]),
        JSONEndpoint(
            path: "/v1/attachments",
            body: #"{"attId":"att-$n","recordId":"pu-$n","collection":"part_usage","contentType":"image/jpeg","#
                + #""totalBytes":$totalBytes,"chunkBytes":$chunkBytes,"chunkCount":$chunkCount,"sha256":"\#(String(repeating: "ab", count: 32))"}"#,
            slots: ["totalBytes": "100000", "chunkBytes": "65536", "chunkCount": "2"]),
        JSONEndpoint(
            path: "/v1/orders", body: #"{"orderId":"o-$n","customerId":"c-1","lines":[{"sku":"s-1","qty":$qty}]}"#, slots: ["qty": "2"],
            extraHeaders: ["Idempotency-Key": "key-$n"]),
        JSONEndpoint(path: "/v1/attachments/att-none/finalize", body: #"{"chunkSha256":[$digest]}"#, slots: ["digest": "\"00\""]),
    ]
}

/// Sends endpoint bodies for one device, numbering its ops as a device does.
struct Probe {
    let device: SyncDevice
    private var counter = 0
    /// The next `clientSeq`: one above the ops the server has received in order.
    private var nextSeq: Int64 = 1

    init(device: SyncDevice) {
        self.device = device
    }

    mutating func send(_ endpoint: JSONEndpoint, slot: String, value: String) async throws -> TestResponse {
        counter += 1
        var body = endpoint.body
        // Longest names first, so `$to` never eats part of another slot's name.
        for (name, ordinary) in endpoint.slots.sorted(by: { $0.key.count > $1.key.count }) {
            body = body.replacingOccurrences(of: "$" + name, with: name == slot ? value : ordinary)
        }
        body = body.replacingOccurrences(of: "$seq", with: String(nextSeq)).replacingOccurrences(of: "$dev", with: device.deviceId)
            .replacingOccurrences(of: "$now", with: RFC3339.string(from: Date())).replacingOccurrences(of: "$n", with: String(counter))
        let headers = endpoint.extraHeaders.mapValues { $0.replacingOccurrences(of: "$n", with: String(counter)) }
        let answer = try await device.server.client.send(
            "POST", endpoint.path, body: Data(body.utf8), headers: device.jsonHeaders.merging(headers) { $1 }, token: device.token)
        // A push the server took received its op: the device's next number moves on.
        if endpoint.path == "/v1/sync/push", answer.status == 200 { nextSeq += 1 }
        return answer
    }
}

extension SyncDevice {
    /// The headers of a sync call with a JSON body.
    var jsonHeaders: [String: String] { headers.merging(["Content-Type": "application/json"]) { $1 } }

    /// Registers `bytes` (at most 64 KiB: one chunk) as `attId` of the record `pu-1`, uploads and finalizes it.
    func upload(_ bytes: Data, attId: String) async throws {
        let sha = digest(bytes)
        let register =
            #"{"attId":"\#(attId)","recordId":"pu-1","collection":"part_usage","contentType":"image/jpeg","totalBytes":\#(bytes.count),"#
            + #""chunkBytes":65536,"chunkCount":1,"sha256":"\#(sha)"}"#
        let registered = try await server.client.send("POST", "/v1/attachments", body: Data(register.utf8), headers: jsonHeaders, token: token)
        try #require(registered.status == 200, "\(registered)")
        let put = try await server.client.send(
            "PUT", "/v1/attachments/\(attId)/chunks/0", body: bytes, headers: headers.merging(["X-Chunk-SHA256": sha]) { $1 }, token: token)
        try #require(put.status == 200, "\(put)")
        let finalized = try await server.client.send("POST", "/v1/attachments/\(attId)/finalize", body: Data(), headers: headers, token: token)
        try #require(finalized.status == 200, "\(finalized)")
    }
}
