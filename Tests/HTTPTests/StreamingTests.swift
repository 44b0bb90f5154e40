import Foundation
import HTTP
import Synchronization
import Testing

/// A stream fed from test code: `push` queues bytes and wakes the server.
final class PushStream: ResponseStream {
    private struct State {
        var pending: [Data] = []
        var ended = false
        var closed = false
        var wake: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    var isClosed: Bool { state.withLock { $0.closed } }

    func push(_ text: String) {
        let wake = state.withLock { state in
            state.pending.append(Data(text.utf8))
            return state.wake
        }
        wake?()
    }

    func end() {
        let wake = state.withLock { state in
            state.ended = true
            return state.wake
        }
        wake?()
    }

    func read(maxBytes: Int) -> StreamChunk {
        state.withLock { state in
            if !state.pending.isEmpty { return .data(state.pending.removeFirst()) }
            return state.ended ? .end : .wait
        }
    }

    func setWakeHandler(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    func close() {
        state.withLock { $0.closed = true }
    }
}

/// Polls `condition` for up to `seconds`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        if Date() > deadline { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}

@Suite("Streaming bodies and responses")
struct StreamingTests {
    @Test("sends a stream that waits, woken from another thread, then ends")
    func wakesWaitingStream() throws {
        let stream = PushStream()
        let test = try LoopbackServer { router in
            router.add(.GET, "/events") { _ in Response(headers: ["Content-Type": "text/event-stream"], body: .stream(stream)) }
        }
        defer { test.stop() }
        let connection = try RawConnection(port: test.port)
        connection.sendRequest("GET", "/events")
        let (status, headers) = try connection.readStatusAndHeaders()
        #expect(status == 200)
        #expect(headers["Transfer-Encoding"] == "chunked")
        for round in 1...3 {
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.1)
                stream.push("data: \(round)\n\n")
            }
            #expect(try connection.readChunk() == Data("data: \(round)\n\n".utf8))
        }
        Thread.detachNewThread { stream.end() }
        #expect(try connection.readChunk() == nil)
        #expect(eventually { stream.isClosed })
    }

    @Test("loses nothing when wakes race the suspend")
    func racingWakes() throws {
        let stream = PushStream()
        let test = try LoopbackServer { router in
            router.add(.GET, "/events") { _ in Response(body: .stream(stream)) }
        }
        defer { test.stop() }
        let connection = try RawConnection(port: test.port)
        connection.sendRequest("GET", "/events")
        Thread.detachNewThread {
            for index in 0..<2000 {
                stream.push("\(index),")
                if index % 100 == 0 { Thread.sleep(forTimeInterval: 0.001) }
            }
            stream.end()
        }
        let response = try connection.readResponse()
        #expect(response.text == (0..<2000).map { "\($0)," }.joined())
    }

    @Test("ends open streams when the server shuts down")
    func shutdownEndsStreams() throws {
        let stream = PushStream()
        let test = try LoopbackServer { router in
            router.add(.GET, "/events") { _ in Response(body: .stream(stream)) }
        }
        let connection = try RawConnection(port: test.port)
        connection.sendRequest("GET", "/events")
        _ = try connection.readStatusAndHeaders()
        let started = Date()
        test.server.shutdown(timeout: .seconds(5))
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try connection.readChunk() == nil)
        #expect(stream.isClosed)
    }

    @Test("writes a streamed body to a temporary file and deletes it after the handler")
    func bodyToFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-http-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seenPath = Mutex<String?>(nil)
        let test = try LoopbackServer(configure: { $0.temporaryDirectory = directory }) { router in
            router.add(.PUT, "/upload", options: RouteOptions(maxBodyBytes: 4 << 20, streamsBodyToFile: true)) { request in
                let file = try #require(request.bodyFile)
                seenPath.withLock { $0 = file.path }
                let contents = try Data(contentsOf: file)
                return try .json(["bytes": contents.count, "inMemory": request.body.count, "sum": contents.reduce(0) { $0 &+ Int($1) }])
            }
        }
        defer { test.stop() }
        let payload = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let response = try rawRequest(port: test.port, "PUT", "/upload", body: payload)
        #expect(response.status == 200)
        let summary = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Int])
        #expect(summary == ["bytes": payload.count, "inMemory": 0, "sum": payload.reduce(0) { $0 &+ Int($1) }])
        let path = try #require(seenPath.withLock { $0 })
        #expect(path.hasPrefix(directory.path))
        #expect(eventually { !FileManager.default.fileExists(atPath: path) })

        let tooBig = try RawConnection(port: test.port)
        tooBig.send("PUT /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
        let chunk = "100000\r\n" + String(repeating: "z", count: 1 << 20) + "\r\n"
        for _ in 0..<5 { tooBig.send(chunk) }
        tooBig.send("0\r\n\r\n")
        #expect(try tooBig.readResponse().status == 413)
        #expect(eventually { (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty == true })
    }

    @Test("sends a file, or a byte range of it")
    func fileResponse() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-http-\(UUID()).txt")
        try Data("0123456789abcdef".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let test = try LoopbackServer { router in
            router.add(.GET, "/whole") { _ in Response(body: .file(file, range: nil)) }
            router.add(.GET, "/part") { _ in Response(status: 206, headers: ["Content-Range": "bytes 4-7/16"], body: .file(file, range: 4..<8)) }
            router.add(.GET, "/missing") { _ in Response(body: .file(file.appendingPathExtension("gone"), range: nil)) }
        }
        defer { test.stop() }
        #expect(try rawRequest(port: test.port, "GET", "/whole").text == "0123456789abcdef")
        let part = try rawRequest(port: test.port, "GET", "/part")
        #expect(part.status == 206)
        #expect(part.text == "4567")
        let missing = try rawRequest(port: test.port, "GET", "/missing")
        #expect(missing.status == 500)
        #expect(missing.errorCode == "INTERNAL_ERROR")
    }
}
