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
            guard let level = Level.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
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
        let merged = metadata.merging(extra()) { _, new in new }
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

/// Where log lines go. The standard-error sink serializes writes so lines from
/// different threads never interleave; the capturing sink lets tests read them.
public final class LogSink: Sendable {
    private let isCapturing: Bool
    /// Captured lines, or nothing but the write lock for the standard-error sink.
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
        let line = Self.format(record)
        lines.withLock { captured in
            if isCapturing {
                captured.append(line)
            } else {
                FileHandle.standardError.write(Data((line + "\n").utf8))
            }
        }
    }

    static func format(_ record: LogRecord) -> String {
        let time = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        var line = "\(time) \(record.level) \(record.label): \(record.message)"
        for key in record.metadata.keys.sorted() {
            line += " \(key)=\(record.metadata[key]!)"
        }
        return line
    }
}
