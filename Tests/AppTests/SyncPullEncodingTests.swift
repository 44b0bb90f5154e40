import AppTesting
import Foundation
import HTTP
import Support
import SyncProtocol
import Testing

/// Pull pages compressed on request, and the compact field metadata (PROTOCOL.md, Pull).
@Suite("Pull encodings")
struct SyncPullEncodingTests {
    /// Two devices' edits to three records, so a page names several ops.
    private static func seeded(_ server: TestServer) async throws -> SyncDevice {
        let ana = try await server.device()
        let ben = try await ana.sibling()
        let created = try await ana.push(
            (1...3).map { ana.create("jobs", "job-\($0)", ["title": .string("Boiler \($0)"), "status": "in_progress"]) })
        #expect(created.allSatisfy { $0.status == .applied })
        let base = created[1].serverSeq
        #expect(try await ben.push1(ben.update("jobs", "job-2", ["status": "complete"], base: base)).status == .applied)
        return ana
    }

    @Test("Gzip is sent only when Accept-Encoding allows it, and inflates to the plain page")
    func negotiation() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await Self.seeded(server)
        let plain = try RawGet.send(server, "/v1/sync/pull", device: ana)
        #expect(plain.status == 200 && plain.headers["Content-Encoding"] == nil && plain.headers["Vary"] == "Accept-Encoding")
        let gzip = try RawGet.send(server, "/v1/sync/pull", device: ana, extra: [("Accept-Encoding", "gzip, deflate")])
        #expect(gzip.status == 200 && gzip.headers["Content-Encoding"] == "gzip" && gzip.headers["Vary"] == "Accept-Encoding")
        let inflated = try GzipInflater.decompress(gzip.body)
        #expect(Self.withoutCursor(inflated) == Self.withoutCursor(plain.body), "the same page, but for the cursor's issue time")
        #expect(try JSONDecoder().decode(PullResponse.self, from: inflated).changes.count == 3)

        for refused in ["gzip;q=0", "identity", "gzip;q=7", "*;q=0", String(repeating: "gzip;q=x,", count: 500)] {
            let answer = try RawGet.send(server, "/v1/sync/pull", device: ana, extra: [("Accept-Encoding", refused)])
            #expect(answer.status == 200 && answer.headers["Content-Encoding"] == nil, "\(refused.prefix(20))")
            #expect(Self.withoutCursor(answer.body) == Self.withoutCursor(plain.body))
        }
    }

    @Test("A compact page decodes to the same changes as the full one, and is smaller")
    func compactForm() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await Self.seeded(server)
        let full = try RawGet.send(server, "/v1/sync/pull", device: ana)
        let compact = try RawGet.send(server, "/v1/sync/pull?fieldMeta=compact", device: ana)
        #expect(compact.status == 200)
        let fullPage = try JSONDecoder().decode(PullResponse.self, from: full.body)
        let compactPage = try JSONDecoder().decode(PullResponse.self, from: compact.body)
        #expect(compactPage.changes == fullPage.changes)
        #expect(fullPage.changes.allSatisfy { $0.fieldMeta?.values.allSatisfy { $0.opId != nil && $0.deviceId != nil } == true })
        #expect(compact.body.count < full.body.count)

        let raw = try #require(try JSONSerialization.jsonObject(with: compact.body) as? [String: Any])
        let ops = try #require(raw["fieldMetaOps"] as? [[String: String]])
        #expect(ops.count == 4, "three creates and one update: \(ops)")
        #expect(Set(ops.compactMap { $0["deviceId"] }).count == 2)
    }

    @Test("An unknown fieldMeta form is refused with VALIDATION_FAILED")
    func unknownForm() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device()
        for value in ["tiny", "COMPACT", "", String(repeating: "c", count: 5_000)] {
            let answer = try RawGet.send(server, "/v1/sync/pull?fieldMeta=" + value, device: ana)
            #expect(answer.status == 400 && answer.text.contains("VALIDATION_FAILED"), "\(value.prefix(20))")
        }
    }

    /// The body up to the cursor, which carries the second it was issued.
    private static func withoutCursor(_ body: Data) -> Data {
        body.range(of: Data(#""nextCursor":"#.utf8)).map { body[..<$0.lowerBound] } ?? body
    }
}

/// A GET over a raw loopback socket: nothing negotiated but what the test sends, and the body as
/// it came over the wire (chunks joined, never inflated).
private enum RawGet {
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func send(_ server: TestServer, _ target: String, device: SyncDevice, extra: [(String, String)] = []) throws -> Answer {
        let socket = try Loopback.connect(port: server.baseURL.port ?? 0)
        defer { close(socket) }
        var head = "GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer \(device.token)\r\n"
        for (name, value) in device.headers.map({ ($0.key, $0.value) }) + extra { head += "\(name): \(value)\r\n" }
        try Loopback.send(Data((head + "\r\n").utf8), on: socket)
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = recv(socket, &buffer, buffer.count, 0), count > 0 { response.append(contentsOf: buffer[0..<count]) }
        let end = try #require(response.range(of: Data("\r\n\r\n".utf8)))
        let lines = String(decoding: response[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers.add(name: String(parts[0]), value: parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let body = Data(response[end.upperBound...])
        return Answer(status: status, headers: headers, body: headers["Transfer-Encoding"] == "chunked" ? try dechunk(body) : body)
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var body = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = try #require(Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16))
            if size == 0 { break }
            body += rest[lineEnd.upperBound..<lineEnd.upperBound + size]
            rest = rest[(lineEnd.upperBound + size + 2)...]
        }
        return body
    }
}
