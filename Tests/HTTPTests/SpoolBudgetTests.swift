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
            // An upload naming a user (as a checked token would) spends that user's share.
            let admit: @Sendable (Request) throws -> String? = { $0.headers["X-User"] }
            router.add(.PUT, "/v1/upload", options: RouteOptions(maxBodyBytes: 800, streamsBodyToFile: true, admit: admit)) { request in
                Response.text(String((try? Data(contentsOf: request.bodyFile!))?.count ?? -1))
            }
        }
    }

    /// Sends an upload's head only and waits until the server has reserved its bytes, which
    /// it then holds until the connection closes. The server answers `100 Continue` only
    /// after it reserved them; a 503 means bytes not yet given back (a finished upload's are
    /// returned just after its answer), so the hold is tried again on a new connection.
    private static func hold(_ port: Int, bytes: Int, from address: String, user: String? = nil) throws -> RawConnection {
        var held: RawConnection?
        _ = eventually {
            guard let connection = try? RawConnection(port: port) else { return false }
            connection.send(
                "PUT /v1/upload HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: \(address)\r\nContent-Length: \(bytes)\r\n"
                    + (user.map { "X-User: \($0)\r\n" } ?? "") + "Expect: 100-continue\r\n\r\n")
            guard (try? connection.readStatusAndHeaders())?.status == 100 else { return false }
            held = connection
            return true
        }
        guard let held else { throw RawClientError(description: "the server never accepted the held upload's head") }
        return held
    }

    private static func upload(_ port: Int, bytes: Int, from address: String, user: String? = nil) throws -> RawResponse {
        let headers = [("X-Forwarded-For", address)] + (user.map { [("X-User", $0)] } ?? [])
        return try rawRequest(port: port, "PUT", "/v1/upload", headers: headers, body: Data(count: bytes))
    }

    @Test("The route's admit check names whose share an upload spends: a user's from any address, apart from the address's")
    func perUser() throws {
        let test = try Self.server()
        defer { test.stop() }
        let held = try Self.hold(test.port, bytes: 500, from: "203.0.113.1", user: "ana")

        let sameUserElsewhere = try Self.upload(test.port, bytes: 200, from: "203.0.113.2", user: "ana")
        let otherUserSameAddress = try Self.upload(test.port, bytes: 200, from: "203.0.113.1", user: "ben")
        let anonymousSameAddress = try Self.upload(test.port, bytes: 200, from: "203.0.113.1")

        #expect(sameUserElsewhere.status == 503, "ana's 500 held bytes leave her no room for 200 more, from any address")
        #expect(otherUserSameAddress.text == "200")
        #expect(anonymousSameAddress.text == "200")
        withExtendedLifetime(held) {}
    }

    @Test("What the admit check throws is the answer, before any body byte is spooled")
    func refusedByAdmit() throws {
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: spool) }
        let test = try LoopbackServer(configure: { $0.temporaryDirectory = spool }) { router in
            let admit: @Sendable (Request) throws -> String? = { _ in throw HTTPFailure.notFound }
            router.add(.PUT, "/v1/upload", options: RouteOptions(maxBodyBytes: 1 << 20, streamsBodyToFile: true, admit: admit)) { _ in
                Response.text("stored")
            }
        }
        defer { test.stop() }
        let connection = try RawConnection(port: test.port)

        connection.send("PUT /v1/upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(1 << 20)\r\nExpect: 100-continue\r\n\r\n")

        #expect(try connection.readStatusAndHeaders().status == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test("An upload past the client's or the server's spool budget gets 503 with Retry-After; finished ones give their bytes back")
    func budget() throws {
        let test = try Self.server()
        defer { test.stop() }
        var first: RawConnection? = try Self.hold(test.port, bytes: 500, from: "203.0.113.1")
        // The held upload's 500 bytes leave the same client no room for 500 more.
        let perClient = try Self.upload(test.port, bytes: 500, from: "203.0.113.1")
        #expect(perClient.status == 503)
        #expect(perClient.headers["Retry-After"] == "5")
        #expect(try Self.upload(test.port, bytes: 100, from: "203.0.113.1").text == "100", "within the client's share")

        let second = try Self.hold(test.port, bytes: 500, from: "203.0.113.2")
        // The server now holds 1 000 bytes for two clients: a third client is refused too.
        let overall = try Self.upload(test.port, bytes: 100, from: "203.0.113.3")
        #expect(overall.status == 503)
        #expect(overall.headers["Retry-After"] == "5")
        first = nil
        #expect(Self.eventually { (try? Self.upload(test.port, bytes: 400, from: "203.0.113.3"))?.text == "400" })
        withExtendedLifetime((first, second)) {}
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
