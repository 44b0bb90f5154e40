import Foundation
import HTTP
import Testing

/// Bodies written to disk while they arrive take at most the spool budget, in all and per client.
@Suite("Spool budget over loopback")
struct SpoolBudgetTests {
    private static func server() throws -> LoopbackServer {
        try LoopbackServer(configure: {
            $0.spoolBytesLimit = 1_000
            $0.spoolBytesPerAddress = 600
            $0.trustedProxies = ["127.0.0.1"]
            // The held uploads stay open however slowly a loaded machine runs the test.
            $0.idleTimeoutSeconds = 600
            $0.bodyTimeoutSeconds = 600
        }) { router in
            router.add(.PUT, "/v1/upload", options: RouteOptions(maxBodyBytes: 800, streamsBodyToFile: true)) { request in
                Response.text(String((try? Data(contentsOf: request.bodyFile!))?.count ?? -1))
            }
        }
    }

    /// Sends an upload's head only, so its reservation is held until the connection closes.
    private static func hold(_ port: Int, bytes: Int, from address: String) throws -> RawConnection {
        let connection = try RawConnection(port: port)
        connection.send("PUT /v1/upload HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: \(address)\r\nContent-Length: \(bytes)\r\n\r\n")
        return connection
    }

    private static func upload(_ port: Int, bytes: Int, from address: String) throws -> RawResponse {
        try rawRequest(port: port, "PUT", "/v1/upload", headers: [("X-Forwarded-For", address)], body: Data(count: bytes))
    }

    @Test("An upload past the client's or the server's spool budget gets 503 with Retry-After; finished ones give their bytes back")
    func budget() throws {
        let test = try Self.server()
        defer { test.stop() }
        var first: RawConnection? = try Self.hold(test.port, bytes: 500, from: "203.0.113.1")
        // Once the server has read the held upload's head, the same client's next 500 bytes do not fit.
        #expect(Self.eventually { (try? Self.upload(test.port, bytes: 500, from: "203.0.113.1"))?.status == 503 })
        let perClient = try Self.upload(test.port, bytes: 500, from: "203.0.113.1")
        #expect(perClient.status == 503)
        #expect(perClient.headers["Retry-After"] == "5")
        #expect(try Self.upload(test.port, bytes: 100, from: "203.0.113.1").text == "100", "within the client's share")

        let second = try Self.hold(test.port, bytes: 500, from: "203.0.113.2")
        // The server now holds 1 000 bytes for two clients: a third client is refused too.
        #expect(Self.eventually { (try? Self.upload(test.port, bytes: 100, from: "203.0.113.3"))?.status == 503 })
        first = nil
        #expect(Self.eventually { (try? Self.upload(test.port, bytes: 400, from: "203.0.113.3"))?.text == "400" })
        _ = (first, second)
    }

    private static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }
}
