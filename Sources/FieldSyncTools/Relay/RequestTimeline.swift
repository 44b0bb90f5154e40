import FieldSyncClient
import Foundation
import Synchronization

/// An ``HTTPTransport`` that notes when each request started and ended, to show where a
/// sync's time goes: how long requests of each kind took, and how long no request at all
/// was on the link (the device busy with itself, or waiting before a retry).
final class RequestTimeline: HTTPTransport {
    struct Entry: Sendable {
        /// `POST /v1/attachments`, `PUT chunk`, … (ids left out).
        var kind: String
        var start: Duration
        var end: Duration
        var bytesSent: Int
        var bytesReceived: Int
        /// The HTTP status; nil when no answer came.
        var status: Int?
    }

    private let base: any HTTPTransport
    private let state = Mutex<(origin: ContinuousClock.Instant?, entries: [Entry])>((nil, []))

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    /// Forgets what was noted and measures from now on.
    func start() {
        state.withLock { $0 = (ContinuousClock.now, []) }
    }

    var entries: [Entry] { state.withLock { $0.entries } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let began = ContinuousClock.now
        var entry = Entry(kind: Self.kind(request), start: .zero, end: .zero, bytesSent: request.body?.count ?? 0, bytesReceived: 0)
        defer {
            let ended = ContinuousClock.now
            state.withLock { state in
                guard let origin = state.origin else { return }
                (entry.start, entry.end) = (began - origin, ended - origin)
                state.entries.append(entry)
            }
        }
        let response = try await base.send(request)
        (entry.bytesReceived, entry.status) = (response.body.count, response.status)
        return response
    }

    /// Per kind: requests, failures and their summed time; then the time with no request out.
    func summary(until end: Duration) -> String {
        let entries = entries.sorted { $0.start < $1.start }
        var lines: [String] = []
        for kind in Set(entries.map(\.kind)).sorted() {
            let ofKind = entries.filter { $0.kind == kind }
            let total = ofKind.reduce(Duration.zero) { $0 + ($1.end - $1.start) }
            let failed = ofKind.filter { $0.status.map { !(200..<300).contains($0) } ?? true }.count
            let seconds = Self.seconds(total)
            lines.append(
                "    " + kind.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%5d requests (%d failed), %7.1f s in all, %5.2f s each", ofKind.count, failed, seconds,
                        seconds / Double(max(ofKind.count, 1))))
        }
        var idle = Duration.zero
        var busyUntil = Duration.zero
        for entry in entries {
            if entry.start > busyUntil { idle += entry.start - busyUntil }
            busyUntil = max(busyUntil, entry.end)
        }
        if end > busyUntil { idle += end - busyUntil }
        lines.append(String(format: "    no request out for %.1f s of %.1f s", Self.seconds(idle), Self.seconds(end)))
        return lines.joined(separator: "\n")
    }

    /// Every request, one per line: start and end (s), kind, status, bytes each way.
    func tsv() -> String {
        entries.sorted { $0.start < $1.start }.map {
            String(
                format: "%.3f\t%.3f\t%@\t%@\t%d\t%d", Self.seconds($0.start), Self.seconds($0.end), $0.kind, $0.status.map(String.init) ?? "-",
                $0.bytesSent, $0.bytesReceived)
        }.joined(separator: "\n")
    }

    private static func kind(_ request: HTTPRequest) -> String {
        let parts = request.url.path.split(separator: "/")
        let path: String =
            switch parts.last {
            case _ where parts.count >= 2 && parts[parts.count - 2] == "chunks": "/v1/attachments/…/chunks/…"
            case "finalize"?: "/v1/attachments/…/finalize"
            default: request.url.path
            }
        return "\(request.method) \(path)"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
