import Foundation
import HTTP
import Testing

@Suite("Gzip bodies")
struct GzipTests {
    @Test(
        "Accept-Encoding allows gzip only when gzip (or *) carries a non-zero weight",
        arguments: [
            (nil, false), ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip;q=0.5", true), ("gzip ; q=1.000", true),
            ("*", true), ("br, *;q=0.1", true), ("identity", false), ("deflate, br", false), ("gzip;q=0", false), ("gzip;q=0.000", false),
            ("gzip;q=0, *", false), ("*;q=0", false), ("gzip, *;q=0", true),
        ] as [(String?, Bool)])
    func negotiation(header: String?, allowed: Bool) {
        let headers = HTTPHeaders(header.map { [("Accept-Encoding", $0)] } ?? [])
        #expect(AcceptEncoding(headers).allowsGzip == allowed)
    }

    @Test(
        "A hostile Accept-Encoding never leads to gzip through the malformed member",
        arguments: [
            "gzip;q=2", "gzip;q=-1", "gzip;q=0.0001", "gzip;q=1.5", "gzip;q=abc", "gzip;q=", "gzip;q", "gzip;level=9", "gz\u{0}ip",
            "\"gzip\"", "gzip;q=0.5;q=1;x", ";;;,,,", String(repeating: "g", count: 10_000), String(repeating: "gzip;q=0,", count: 2_000),
            "gzip;q=1e0", "gzip;q=0x1", "gzip;q=NaN", "gzip;q=inf", "gzíp",
        ])
    func hostileValues(header: String) {
        #expect(!AcceptEncoding(HTTPHeaders([("Accept-Encoding", header)])).allowsGzip, "\(header.prefix(40))")
    }

    @Test("A malformed member is skipped and the others still count; repeated fields are read together")
    func membersAndFields() {
        #expect(AcceptEncoding(HTTPHeaders([("Accept-Encoding", "gzip;q=zz, gzip;q=0.2")])).allowsGzip)
        #expect(AcceptEncoding(HTTPHeaders([("Accept-Encoding", "br"), ("Accept-Encoding", "gzip")])).allowsGzip)
    }

    @Test("What the deflater writes piece by piece inflates to the same bytes")
    func roundTrip() throws {
        let text = (0..<5_000).map { #"{"opId":"op-\#($0 % 7)","deviceId":"device-1","seq":\#($0)}"# }.joined(separator: ",")
        let deflater = try GzipDeflater()
        var compressed = Data()
        var pieces = Data(text.utf8)[...]
        while !pieces.isEmpty {
            compressed += try deflater.compress(Data(pieces.prefix(1_000)))
            pieces = pieces.dropFirst(1_000)
        }
        compressed += try deflater.finish()
        #expect(compressed.prefix(2) == Data([0x1f, 0x8b]), "a gzip member")
        #expect(compressed.count * 5 < text.utf8.count)
        #expect(try GzipInflater.decompress(compressed) == Data(text.utf8))

        let empty = try GzipDeflater()
        #expect(try GzipInflater.decompress(try empty.compress(Data()) + empty.finish()).isEmpty)
    }

    @Test("Inflating refuses truncated data, data that is not gzip, and output past its limit")
    func inflateRefusals() throws {
        let deflater = try GzipDeflater()
        let whole = try deflater.compress(Data(repeating: 0x61, count: 100_000)) + deflater.finish()
        #expect(throws: GzipError.self) { try GzipInflater.decompress(whole.dropLast(4)) }
        #expect(throws: GzipError.self) { try GzipInflater.decompress(Data("{\"not\":\"gzip\"}".utf8)) }
        #expect(throws: GzipError.self) { try GzipInflater.decompress(whole, limit: 99_999) }
        #expect(try GzipInflater.decompress(whole, limit: 100_000).count == 100_000)
    }

    @Test("A gzip produced stream goes out chunked with the compressed bytes of what was written")
    func producedStream() throws {
        let pieces = (0..<200).map { Data(#"{"index":\#($0),"text":"\#(String(repeating: "abc", count: $0))"}"#.utf8) }
        let test = try LoopbackServer { router in
            router.add(.GET, "/page") { _ in
                Response(
                    headers: ["Content-Encoding": "gzip"], body: .stream(ProducedStream.gzip { write in for piece in pieces { try write(piece) } }))
            }
        }
        defer { test.stop() }
        let connection = try RawConnection(port: test.port)
        connection.sendRequest("GET", "/page", headers: [("Accept-Encoding", "gzip")])
        let response = try connection.readResponse()
        #expect(response.status == 200 && response.headers["Content-Encoding"] == "gzip")
        #expect(try GzipInflater.decompress(response.body) == pieces.reduce(Data(), +))
    }
}
