import Foundation
import Synchronization

/// A structured, line-oriented logger in the shape of swift-log: a cheap value type
/// whose messages are autoclosures, so a disabled level costs nothing.
///
/// ```swift
/// var logger = Logger(label: "fieldsync.http")
/// logger[metadataKey: "request.id"] = "42"
/// logger.info("request finished", metadata: ["status": "200"])
/// ```
public struct Logger: Sendable {
    public enum Level: Int, Comparable, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Parses `trace`, `debug`, `info`, `notice`, `warning` or `error`.
        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
            self = level
        }
    }

    public typealias Metadata = [String: String]

    public let label: String
    public var level: Level
    public var metadata: Metadata
    private let sink: LogSink

    public init(label: String, level: Level = .info, sink: LogSink = .standardError) {
        self.label = label
        self.level = level
        self.metadata = [:]
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, metadata extra: @autoclosure () -> Metadata = [:]) {
        guard level >= self.level else { return }
        let added = extra()
        let merged = metadata.isEmpty ? added : metadata.merging(added) { _, new in new }
        sink.write(LogRecord(level: level, label: label, message: message(), metadata: merged))
    }

    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.trace, message(), metadata: metadata())
    }
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.debug, message(), metadata: metadata())
    }
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.info, message(), metadata: metadata())
    }
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.notice, message(), metadata: metadata())
    }
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.warning, message(), metadata: metadata())
    }
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(.error, message(), metadata: metadata())
    }
}

/// One log event, before formatting.
public struct LogRecord: Sendable {
    public let level: Logger.Level
    public let label: String
    public let message: String
    public let metadata: Logger.Metadata
}

/// Where log lines go. The standard-error sink writes each line with a single `write(2)`,
/// which the kernel does not interleave with other writers' lines (pipes guarantee it up
/// to `PIPE_BUF`, regular files and terminals in practice); the capturing sink lets tests
/// read them.
public final class LogSink: Sendable {
    private let isCapturing: Bool
    /// Captured lines (capturing sinks only).
    private let lines = Mutex<[String]>([])

    private init(capturing: Bool) {
        isCapturing = capturing
    }

    public static let standardError = LogSink(capturing: false)

    /// A sink that keeps lines in memory instead of printing them.
    public static func capturing() -> LogSink { LogSink(capturing: true) }

    /// The lines written so far (capturing sinks only).
    public var captured: [String] { lines.withLock { $0 } }

    func write(_ record: LogRecord) {
        var line = LogLine.bytes(record, at: LogLine.now())
        if isCapturing {
            let text = String(decoding: line, as: UTF8.self)
            lines.withLock { $0.append(text) }
            return
        }
        line.append(UInt8(ascii: "\n"))
        Self.writeAll(line, to: STDERR_FILENO)
    }

    /// Writes every byte, retrying after signals and short writes; gives up silently on
    /// other errors, since a logger has nowhere left to report them.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// Formats a line as `2026-11-29T22:42:52.589 info label: message key=value …` (UTC,
/// milliseconds truncated, metadata sorted by key) straight into UTF-8 bytes.
///
/// The access log writes one line per request, so this avoids Foundation's date
/// formatting and string interpolation on that path.
enum LogLine {
    /// Wall-clock time as whole seconds and microseconds since 1970.
    static func now() -> (seconds: Int, microseconds: Int) {
        var time = timeval()
        gettimeofday(&time, nil)
        return (Int(time.tv_sec), Int(time.tv_usec))
    }

    static func bytes(_ record: LogRecord, at time: (seconds: Int, microseconds: Int)) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(96 + record.label.utf8.count + record.message.utf8.count + record.metadata.count * 24)
        appendTimestamp(time, to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: record.level.name.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: record.label.utf8)
        line.append(contentsOf: ": ".utf8)
        line.append(contentsOf: record.message.utf8)
        for key in record.metadata.keys.sorted() {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: record.metadata[key]!.utf8)
        }
        return line
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmm` in UTC.
    static func appendTimestamp(_ time: (seconds: Int, microseconds: Int), to line: inout [UInt8]) {
        var seconds = time_t(time.seconds)
        var parts = tm()
        // gmtime_r is reentrant and does no locale or time-zone file lookups (UTC only).
        gmtime_r(&seconds, &parts)
        appendDigits(Int(parts.tm_year) + 1900, count: 4, to: &line)
        line.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, count: 2, to: &line)
        line.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), count: 2, to: &line)
        line.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), count: 2, to: &line)
        line.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), count: 2, to: &line)
        line.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), count: 2, to: &line)
        line.append(UInt8(ascii: "."))
        appendDigits(time.microseconds / 1000, count: 3, to: &line)
    }

    /// The last `count` decimal digits of a non-negative `value`, zero-padded.
    private static func appendDigits(_ value: Int, count: Int, to line: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            line.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}

extension Logger.Level {
    /// The lower-case name, as written in log lines and accepted by `init(name:)`.
    public var name: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
