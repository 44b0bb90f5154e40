import Foundation
import Synchronization
import Testing

@testable import Support

/// A hand-advanced clock for time-dependent rules.
final class ManualClock: Sendable {
    private let time = Mutex<Double>(1_000)
    var now: @Sendable () -> Double { { [self] in time.withLock { $0 } } }
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
}

@Suite("Support")
struct SupportTests {
    @Test("Arguments: values, inline values, flags, positionals and errors")
    func arguments() throws {
        let parsed = try CommandLineArguments(
            ["user", "add", "--username", "ana", "--role=field", "--no-worker"],
            valueOptions: ["username", "role"], flagOptions: ["help", "no-worker"])
        #expect(parsed.positionals == ["user", "add"])
        #expect(parsed.value("username") == "ana")
        #expect(parsed.value("role") == "field")
        #expect(parsed.has("no-worker"))
        #expect(throws: CommandLineArguments.ParseError.self) {
            try CommandLineArguments(["--bogus"], valueOptions: [])
        }
        #expect(throws: CommandLineArguments.ParseError.self) {
            try CommandLineArguments(["--port"], valueOptions: ["port"])
        }
    }

    @Test("Environment treats empty as unset and rejects malformed integers")
    func environment() throws {
        let env = Environment(["A": "", "B": "12", "C": "x"])
        #expect(env["A"] == nil)
        #expect(try env.integer("B") == 12)
        #expect(throws: ConfigurationError.self) { try env.integer("C") }
    }

    @Test("Failure throttle: free failures, then delays that double up to the cap, forgotten after a quiet spell")
    func failureThrottle() {
        let clock = ManualClock()
        let throttle = FailureThrottle(rule: .init(freeFailures: 3, baseDelay: 10, maxDelay: 35, forgetAfter: 600), now: clock.now)
        for _ in 0..<2 { throttle.recordFailure("ana") }
        #expect(throttle.retryAfter("ana") == nil)
        throttle.recordFailure("ana")
        #expect(throttle.retryAfter("ana") == 10)
        #expect(throttle.retryAfter("bob") == nil)
        clock.advance(10)
        #expect(throttle.retryAfter("ana") == nil, "a delay, not a lock")
        throttle.recordFailure("ana")
        #expect(throttle.retryAfter("ana") == 20)
        clock.advance(20)
        for _ in 0..<50 { throttle.recordFailure("ana") }
        #expect(throttle.retryAfter("ana") == 35, "capped, however many failures")
        clock.advance(601)
        throttle.recordFailure("ana")
        #expect(throttle.retryAfter("ana") == nil, "starts over after a quiet spell")
        throttle.reset("ana")
        #expect(throttle.count == 0)
    }

    @Test("Failure throttle holds at most its key bound, dropping the least recently used keys")
    func failureThrottleBound() {
        let clock = ManualClock()
        let throttle = FailureThrottle(rule: .init(freeFailures: 1, baseDelay: 60, maxDelay: 60), maxKeys: 10, now: clock.now)
        throttle.recordFailure("admin")
        for index in 0..<1_000 {
            clock.advance(0.001)
            throttle.recordFailure("flood-\(index)")
            if index % 5 == 0 { _ = throttle.retryAfter("admin") }  // admin's key stays in use
        }
        #expect(throttle.count <= 10)
        #expect(throttle.retryAfter("admin") != nil, "a key in use survives the flood")
    }

    @Test("Concurrency gate lets the limit in and turns the next caller away once its wait is over")
    func concurrencyGate() {
        let gate = ConcurrencyGate(limit: 1, wait: .milliseconds(50))
        let inside = gate.run { gate.run { "second" } }
        #expect(inside == .some(nil), "the second caller found the only slot taken")
        #expect(gate.run { "free again" } == "free again")
    }

    @Test("Rate limiter allows a burst then refills at the configured rate")
    func rateLimiter() {
        let clock = ManualClock()
        let limiter = RateLimiter(now: clock.now)
        func acquire(_ key: String) -> Int? { limiter.acquire(key, perSecond: 2, burst: 3) }
        for _ in 0..<3 { #expect(acquire("dev") == nil) }
        #expect(acquire("dev") == 1)
        #expect(acquire("other") == nil)
        clock.advance(0.5)
        #expect(acquire("dev") == nil)
        #expect(acquire("dev") != nil)
    }

    @Test("Capturing logger records formatted lines above its level")
    func logger() {
        let sink = LogSink.capturing()
        var logger = Logger(label: "test", level: .info, sink: sink)
        logger[metadataKey: "request.id"] = "7"
        logger.debug("hidden")
        logger.info("shown", metadata: ["status": "200"])
        #expect(sink.captured.count == 1)
        #expect(sink.captured[0].hasSuffix("info test: shown request.id=7 status=200"))
        #expect(Logger.Level(name: "WARNING") == .warning)
    }

    @Test(
        "Log timestamps match Foundation's ISO 8601 format in UTC, milliseconds truncated",
        arguments: [0, 951_782_400, 1_700_000_000, 1_709_251_199, 4_102_444_799] as [Int]
    )
    func logTimestamp(seconds: Int) {
        for microseconds in [0, 45_600, 999_999] {
            var line: [UInt8] = []
            LogLine.appendTimestamp((seconds, microseconds), to: &line)
            let instant = Date(timeIntervalSince1970: Double(seconds) + Double(microseconds / 1000) / 1000 + 0.0001)
            let expected = instant.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
            #expect(String(decoding: line, as: UTF8.self) == expected)
        }
    }

    @Test("A log line has time, level, label, message and metadata sorted by key")
    func logLineLayout() {
        let record = LogRecord(level: .warning, label: "fieldsync.http", message: "slow", metadata: ["z": "1", "a": "ü"])
        let line = String(decoding: LogLine.bytes(record, at: (1_700_000_000, 45_600)), as: UTF8.self)
        #expect(line == "2023-11-14T22:13:20.045 warning fieldsync.http: slow a=ü z=1")
    }
}
