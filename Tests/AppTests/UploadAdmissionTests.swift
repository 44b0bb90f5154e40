import App
import AppTesting
import Foundation
import Support
import SyncEngine
import Testing

/// An upload is authenticated from its headers before any body byte is spooled (PROTOCOL.md,
/// Limits; issue: abuse and exhaustion): a caller without a valid token cannot make the
/// server write to disk.
@Suite("Uploads are authenticated before their body is spooled")
struct UploadAdmissionTests {
    @Test("A chunk upload with a missing, invalid or revoked token gets 401 before its body, and nothing is spooled")
    func refusedBeforeSpooling() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, password) = try server.makeUser()
        let revoked = try await server.login(username: user.username, password: password, deviceId: "phone")
        try #require(try await server.client.delete("/v1/auth/token", token: revoked).status == 204)
        let valid = try await server.login(username: user.username, password: password, deviceId: "tablet")

        for authorization in [nil, "Bearer not-a-token", "Bearer \(revoked)"] {
            let (status, body) = try Self.sendHeadOnly(port: server.application.port, authorization: authorization)

            #expect(status == 401, "\(authorization ?? "no token")")
            let error = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "UNAUTHENTICATED")
            #expect(try Self.spooledFiles(server).isEmpty, "\(authorization ?? "no token")")
        }
        // The same head with a valid token is invited to send its body.
        let (status, _) = try Self.sendHeadOnly(port: server.application.port, authorization: "Bearer \(valid)")
        #expect(status == 100)
    }

    /// Sends the head of a 4 MiB chunk upload with `Expect: 100-continue` and no body, and
    /// reads the first answer: its status, and its body when it is final.
    static func sendHeadOnly(port: Int, authorization: String?) throws -> (status: Int, body: Data) {
        let socket = try Loopback.connect(port: port)
        defer { close(socket) }
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var head = "PUT /v1/attachments/att-1/chunks/0 HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(4 << 20)\r\n"
        head += "X-Chunk-SHA256: \(String(repeating: "ab", count: 32))\r\nExpect: 100-continue\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        try Loopback.send(Data((head + "\r\n").utf8), on: socket)
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = received.range(of: Data("\r\n\r\n".utf8)) {
                let status = Int(String(decoding: received.prefix(upTo: end.lowerBound), as: UTF8.self).split(separator: " ")[1]) ?? 0
                let headers = String(decoding: received.prefix(upTo: end.lowerBound), as: UTF8.self).lowercased()
                let length =
                    headers.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if status == 100 || received.count - end.upperBound >= length { return (status, received[end.upperBound...].prefix(length)) }
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw POSIXError(.ECONNRESET) }
            received.append(contentsOf: buffer[..<count])
        }
    }

    static func spooledFiles(_ server: TestServer) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: server.spoolDirectory.path)
    }
}
