import Foundation
import HTTP
import Support
import Synchronization
import Testing

@Suite("Server lifecycle and isolation of slow handlers")
struct LifecycleTests {
    @Test("reports a taken port clearly")
    func portInUse() throws {
        let first = try LoopbackServer { _ in }
        defer { first.stop() }
        let second = HTTPServer(configuration: .init(port: first.port), router: Router(), logger: Logger(label: "test", sink: .capturing()))
        #expect {
            try second.start()
        } throws: { error in
            (error as? HTTPServerError)?.code == .addressInUse
        }
    }

    @Test("serves from run() until its task is cancelled")
    func runUntilCancelled() async throws {
        let router = Router()
        router.add(.GET, "/ping") { _ in .text("pong") }
        let server = HTTPServer(
            configuration: .init(port: 0, shutdownTimeout: .seconds(1)), router: router, logger: Logger(label: "test", sink: .capturing()))
        let serving = Task { try await server.run() }
        // Other tests block cooperative threads, so the serving task may start late.
        for _ in 0..<3000 where server.port == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        let port = server.port
        try #require(port != 0)
        #expect(try rawRequest(port: port, "GET", "/ping").text == "pong")
        serving.cancel()
        try await serving.value
        #expect(throws: POSIXError(.ECONNREFUSED)) { try rawRequest(port: port, "GET", "/ping") }
    }

    @Test("finishes an in-flight request during graceful shutdown and turns new connections away")
    func gracefulShutdown() throws {
        let started = DispatchSemaphore(value: 0)
        let test = try LoopbackServer { router in
            router.add(.GET, "/slow") { _ in
                started.signal()
                Thread.sleep(forTimeInterval: 1)
                return .text("finished")
            }
        }
        let inFlight = try RawConnection(port: test.port)
        inFlight.sendRequest("GET", "/slow")
        started.wait()
        let stopped = DispatchSemaphore(value: 0)
        let shutdownBegan = Date()
        Thread.detachNewThread {
            test.server.shutdown(timeout: .seconds(5))
            stopped.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        // The kernel may still complete the handshake; the server closes it unserved.
        if let latecomer = try? RawConnection(port: test.port) {
            latecomer.sendRequest("GET", "/slow")
            #expect(throws: (any Error).self) { try latecomer.readResponse() }
        }
        let response = try inFlight.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(response.headers["Connection"]?.lowercased() == "close")
        stopped.wait()
        #expect(Date().timeIntervalSince(shutdownBegan) < 3)
    }

    @Test("answers 503 to a handler still running when the shutdown timeout expires")
    func shutdownTimeout() throws {
        let started = DispatchSemaphore(value: 0)
        let test = try LoopbackServer { router in
            router.add(.GET, "/stuck") { _ in
                started.signal()
                Thread.sleep(forTimeInterval: 3)
                return .text("too late")
            }
        }
        let inFlight = try RawConnection(port: test.port)
        inFlight.sendRequest("GET", "/stuck")
        started.wait()
        let shutdownBegan = Date()
        test.server.shutdown(timeout: .milliseconds(300))
        #expect(Date().timeIntervalSince(shutdownBegan) < 2)
        let response = try inFlight.readResponse()
        #expect(response.status == 503)
        #expect(response.errorCode == "SHUTTING_DOWN")
        #expect(response.headers["Retry-After"] == "5")
    }

    @Test("keeps 200 fast requests prompt while a 5-second request runs")
    func slowRequestDoesNotStallOthers() throws {
        let slowStarted = DispatchSemaphore(value: 0)
        // One network thread: the strongest case, every connection shares its poll loop.
        let test = try LoopbackServer(configure: { $0.mhdThreads = 1 }) { router in
            router.add(.GET, "/slow") { _ in
                slowStarted.signal()
                Thread.sleep(forTimeInterval: 5)
                return .text("slow")
            }
            router.add(.GET, "/fast") { _ in .text("fast") }
        }
        defer { test.stop() }
        let slowResult = Mutex<(status: Int, seconds: Double)?>(nil)
        let slowBegan = Date()
        let slowDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let status = (try? rawRequest(port: test.port, "GET", "/slow"))?.status ?? 0
            slowResult.withLock { $0 = (status, Date().timeIntervalSince(slowBegan)) }
            slowDone.signal()
        }
        slowStarted.wait()

        let durations = Mutex<[Double]>([])
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<25 {
                let began = Date()
                let status = (try? rawRequest(port: test.port, "GET", "/fast"))?.status ?? 0
                let elapsed = Date().timeIntervalSince(began)
                durations.withLock { $0.append(elapsed) }
                statuses.withLock { $0.append(status) }
            }
        }
        let allFastDone = Date().timeIntervalSince(slowBegan)
        #expect(statuses.withLock { $0 }.count == 200)
        #expect(statuses.withLock { $0 }.allSatisfy { $0 == 200 })
        #expect(durations.withLock { $0.max() ?? 99 } < 0.5)
        #expect(allFastDone < 4, "the fast requests finished while the slow one still ran")
        slowDone.wait()
        let slow = try #require(slowResult.withLock { $0 })
        #expect(slow.status == 200)
        #expect(slow.seconds >= 5)
    }
}
