import Foundation
import HTTP
import Testing

/// Slow and greedy clients over loopback: request deadlines, the per-address connection
/// limit, and the connections kept for paths outside the device API.
@Suite("Connection defences over loopback")
struct ConnectionDefenceTests {
    private static func server(configure: (inout HTTPServer.Configuration) -> Void) throws -> LoopbackServer {
        try LoopbackServer(configure: configure) { router in
            router.add(.GET, "/v1/ping") { _ in Response.text("pong") }
            router.add(.GET, "/admin/ping") { _ in Response.text("pong") }
            router.add(.POST, "/v1/echo") { request in Response(body: .bytes(request.body)) }
            router.add(.GET, "/v1/slow") { _ in
                Thread.sleep(forTimeInterval: 2)
                return Response.text("done")
            }
        }
    }

    @Test("A client dribbling its request head is cut off at the header deadline while others are served")
    func slowHead() throws {
        let test = try Self.server { $0.headerTimeoutSeconds = 1 }
        defer { test.stop() }
        let slow = try RawConnection(port: test.port)
        let head = Data("GET /v1/ping HTTP/1.1\r\nHost: localhost\r\nX-Padding: ".utf8) + Data(repeating: UInt8(ascii: "a"), count: 400)
        let closed = slow.dribble(head, every: .milliseconds(100), within: .seconds(15))
        #expect(closed, "the server closed the slow connection")
        #expect(try rawRequest(port: test.port, "GET", "/v1/ping").status == 200)
    }

    @Test("A client dribbling its body is cut off at the body deadline; a slow handler is not")
    func slowBody() throws {
        let test = try Self.server {
            $0.headerTimeoutSeconds = 5
            $0.bodyTimeoutSeconds = 1
        }
        defer { test.stop() }
        let slow = try RawConnection(port: test.port)
        slow.send("POST /v1/echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n")
        #expect(slow.dribble(Data(repeating: UInt8(ascii: "b"), count: 1000), every: .milliseconds(100), within: .seconds(15)))
        // The deadline is off while the handler runs (2 s, past the 1 s body deadline)…
        let patient = try RawConnection(port: test.port)
        patient.sendRequest("GET", "/v1/slow")
        #expect(try patient.readResponse().status == 200)
        // …and the kept-alive connection serves its next request.
        patient.sendRequest("GET", "/v1/ping")
        #expect(try patient.readResponse().text == "pong")
    }

    @Test("One address holds at most its share of connections; a closed one frees a place")
    func perAddressLimit() throws {
        let test = try Self.server {
            $0.perAddressConnectionLimit = 3
            $0.headerTimeoutSeconds = 600  // the held connections stay however slowly the test runs
        }
        defer { test.stop() }
        var held: [RawConnection] = []
        for _ in 0..<3 {
            let connection = try RawConnection(port: test.port)
            connection.sendRequest("GET", "/v1/ping")
            #expect(try connection.readResponse().status == 200)
            held.append(connection)
        }
        let refused = try RawConnection(port: test.port)
        refused.sendRequest("GET", "/v1/ping")
        #expect((try? refused.readResponse()) == nil, "closed without an answer")

        held.removeLast()
        let served = eventuallyServed(port: test.port, path: "/v1/ping")
        #expect(served)
    }

    @Test("With only the reserve left, device requests get 503 and a closed connection while the back-office is served")
    func reserveForBackOffice() throws {
        let test = try Self.server {
            $0.connectionLimit = 8
            $0.reservedConnections = 3
            $0.sheddablePathPrefixes = ["/v1/"]
            $0.headerTimeoutSeconds = 600
        }
        defer { test.stop() }
        var held: [RawConnection] = []
        for _ in 0..<5 {
            let connection = try RawConnection(port: test.port)
            connection.sendRequest("GET", "/v1/ping")
            #expect(try connection.readResponse().status == 200)
            held.append(connection)
        }
        let device = try RawConnection(port: test.port)
        device.sendRequest("GET", "/v1/ping")
        let shed = try device.readResponse()
        #expect(shed.status == 503)
        #expect(shed.headers["Retry-After"] == "5")
        #expect(device.isClosedByPeer())
        #expect(try rawRequest(port: test.port, "GET", "/admin/ping").status == 200)
        held.removeAll()
        #expect(eventuallyServed(port: test.port, path: "/v1/ping"))
    }

    /// Polls `GET path` on new connections until one is answered 200 (10 s at most).
    private func eventuallyServed(port: Int, path: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            if (try? rawRequest(port: port, "GET", path))?.status == 200 { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while ContinuousClock.now < deadline
        return (try? rawRequest(port: port, "GET", path))?.status == 200
    }
}
