import App
import Foundation
import HTTP
import SyncProtocol

/// How the bench asks for pull pages.
enum PullMode: String, CaseIterable {
    case plain
    case gzip
    case compactGzip = "compact+gzip"

    var query: String { self == .compactGzip ? "&fieldMeta=compact" : "" }
    var headers: String { self == .plain ? "" : "Accept-Encoding: gzip\r\n" }
}

/// Pulls pages of 500 as sampled users' devices would, over one keep-alive loopback connection,
/// and measures page times and the bytes each page took on the wire.
struct PullBench {
    let port: Int
    let mode: PullMode
    let users: Int
    /// A bearer token for the `n`th sampled user's device.
    let token: (Int) throws -> String

    init(port: Int, mode: PullMode, users: Int, token: @escaping (Int) throws -> String) {
        self.port = port
        self.mode = mode
        self.users = users
        self.token = token
    }

    struct Figures {
        var mode: PullMode
        var pages = Latencies()
        var firstPages = Latencies()
        var records = 0
        var wireBytes = 0
        var payloadBytes = 0

        var summary: String {
            let seconds = (pages.samples + firstPages.samples).reduce(0, +) / 1000
            let count = pages.samples.count + firstPages.samples.count
            return String(
                format: """
                    pull %@: %d pages, %d records, %.0f records/s; %.0f bytes/record on the wire (payload JSON %.0f bytes/record)
                      page time (after the first of each user): %@
                      first pages: %@
                    """, mode.rawValue, count, records, Double(records) / seconds, Double(wireBytes) / Double(max(records, 1)),
                Double(payloadBytes) / Double(max(records, 1)), pages.summary, firstPages.summary)
        }
    }

    /// Pulls `pages` pages, each sampled user's from the start until it has no more.
    func run(pages: Int) throws -> Figures {
        var figures = Figures(mode: mode)
        let connection = try LoopbackConnection(port: port)
        var user = 0
        var pulled = 0
        while pulled < pages {
            let bearer = try token(user)
            user += 1
            var cursor: String?
            var first = true
            repeat {
                let target =
                    "/v1/sync/pull?limit=500" + mode.query
                    + (cursor.map { "&cursor=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? "")
                let request = Data(
                    ("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(bearer)\r\nX-App-Version: 9.9.9\r\n"
                        + mode.headers + "\r\n").utf8)
                var answer: LoopbackResponse?
                let time = try measureMilliseconds { answer = try connection.exchange(request) }
                guard let answer, answer.status == 200 else { throw CommandError("pull answered \(answer?.status ?? 0)") }
                let body = answer.values("content-encoding").contains("gzip") ? try GzipInflater.decompress(answer.body) : answer.body
                let page = try JSONDecoder().decode(PullResponse.self, from: body)
                if first { figures.firstPages.add(time) } else { figures.pages.add(time) }
                first = false
                figures.records += page.changes.count
                figures.wireBytes += answer.wireBytes
                figures.payloadBytes += page.changes.reduce(0) { $0 + ($1.payload.map { JSONValue.object($0).canonicalData().count } ?? 0) }
                pulled += 1
                cursor = page.hasMore ? page.nextCursor : nil
            } while cursor != nil && pulled < pages
        }
        return figures
    }
}
