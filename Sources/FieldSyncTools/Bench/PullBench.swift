import App
import Foundation
import HTTP
import SyncProtocol
import Synchronization

/// How the bench asks for pull pages.
enum PullMode: String, CaseIterable {
    case plain
    case gzip
    case compactGzip = "compact+gzip"

    var query: String { self == .compactGzip ? "&fieldMeta=compact" : "" }
    var headers: String { self == .plain ? "" : "Accept-Encoding: gzip\r\n" }
}

/// Pulls pages of 500 as sampled users' devices would, each puller over its own keep-alive
/// loopback connection, and measures page times and the bytes each page took on the wire.
struct PullBench {
    let port: Int
    let mode: PullMode
    let users: Int
    /// A bearer token for the `n`th sampled user's device.
    let token: @Sendable (Int) throws -> String

    init(port: Int, mode: PullMode, users: Int, token: @escaping @Sendable (Int) throws -> String) {
        self.port = port
        self.mode = mode
        self.users = users
        self.token = token
    }

    struct Figures {
        var mode: PullMode
        var pullers = 1
        var pages = Latencies()
        var firstPages = Latencies()
        var records = 0
        var wireBytes = 0
        /// Records and their payload JSON's bytes on the pages whose payloads were measured.
        var sampledRecords = 0
        var payloadBytes = 0
        /// Wall-clock seconds of the whole run, all pullers together.
        var seconds = 0.0
        /// CPU seconds of the pullers' own threads, to be left out of the process's.
        var clientCPU = 0.0
        /// CPU seconds of the server (without the pullers) and of PostgreSQL over the run.
        var cpu = CPUSample(process: 0, database: 0)

        mutating func add(_ other: Figures) {
            pages.add(contentsOf: other.pages)
            firstPages.add(contentsOf: other.firstPages)
            records += other.records
            wireBytes += other.wireBytes
            sampledRecords += other.sampledRecords
            payloadBytes += other.payloadBytes
            clientCPU += other.clientCPU
        }

        var summary: String {
            let count = pages.samples.count + firstPages.samples.count
            // One puller: records over the sum of page times, the server's time alone (the
            // client's reading of each page is left out). Several: records over the wall clock.
            let throughput =
                pullers == 1
                ? String(format: "%.0f records/s", Double(records) / ((pages.samples + firstPages.samples).reduce(0, +) / 1000))
                : String(format: "%.0f records/s with %d devices pulling at once (wall clock)", Double(records) / seconds, pullers)
            let perPage = Double(max(count, 1)) / 1000
            let cpuText = String(format: "CPU per page: server %.1f ms + PostgreSQL %.1f ms", cpu.process / perPage, cpu.database / perPage)
            return String(
                format: """
                    pull %@: %d pages, %d records, %@; %.0f bytes/record on the wire (payload JSON %.0f bytes/record)
                      page time (after the first of each user): %@
                      first pages: %@
                      %@ (the benchmark's pulling threads left out)
                    """, mode.rawValue, count, records, throughput, Double(wireBytes) / Double(max(records, 1)),
                Double(payloadBytes) / Double(max(sampledRecords, 1)), pages.summary, firstPages.summary, cpuText)
        }
    }

    /// Pulls `pages` pages in all, shared by `pullers` devices at once, each sampled user's from
    /// the start until it has no more.
    /// - Parameter databaseDirectory: the benchmark's PostgreSQL data folder, for the CPU figures.
    func run(pages: Int, pullers: Int, databaseDirectory: URL) throws -> Figures {
        let results = Mutex<[Result<Figures, any Error>]>([])
        let before = CPUClock.sample(databaseDirectory: databaseDirectory)
        let seconds =
            measureMilliseconds {
                onThreads(pullers) { index in
                    let share = pages / pullers + (index < pages % pullers ? 1 : 0)
                    let start = CPUClock.currentThread()
                    let result = Result {
                        var figures = try run(pages: share, users: stride(from: index, to: Int.max, by: pullers))
                        figures.clientCPU = CPUClock.currentThread() - start
                        return figures
                    }
                    results.withLock { $0.append(result) }
                }
            } / 1000
        let used = CPUClock.sample(databaseDirectory: databaseDirectory) - before
        var figures = Figures(mode: mode, pullers: pullers, seconds: seconds)
        for result in results.withLock({ $0 }) { figures.add(try result.get()) }
        figures.cpu = CPUSample(process: used.process - figures.clientCPU, database: used.database)
        return figures
    }

    /// One device's pulls: `pages` pages of the users numbered `users`, in turn.
    private func run(pages: Int, users: some Sequence<Int>) throws -> Figures {
        var figures = Figures(mode: mode)
        let connection = try LoopbackConnection(port: port)
        var users = users.makeIterator()
        var pulled = 0
        while pulled < pages, let user = users.next() {
            let bearer = try token(user)
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
                if first { figures.firstPages.add(time) } else { figures.pages.add(time) }
                figures.wireBytes += answer.wireBytes
                // The whole page is decoded on each user's first page only, to measure payload
                // bytes; the others are only scanned. Decoding every page took the clients'
                // threads about as much CPU as the server spent, on the same two cores.
                let page: PageOutline
                if first {
                    let whole = try JSONDecoder().decode(PullResponse.self, from: body)
                    figures.sampledRecords += whole.changes.count
                    figures.payloadBytes += whole.changes.reduce(0) { $0 + ($1.payload.map { JSONValue.object($0).canonicalData().count } ?? 0) }
                    page = PageOutline(count: whole.changes.count, nextCursor: whole.nextCursor, hasMore: whole.hasMore)
                    guard try PageOutline(scanning: body) == page else { throw CommandError("scanning a pull page misread it") }
                } else {
                    page = try PageOutline(scanning: body)
                }
                first = false
                figures.records += page.count
                pulled += 1
                cursor = page.hasMore ? page.nextCursor : nil
            } while cursor != nil && pulled < pages
        }
        return figures
    }
}

/// What the benchmark reads of a page to go on: how many changes, and where the next page starts.
private struct PageOutline: Decodable, Equatable {
    /// A change, skipped.
    private struct Change: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    private enum CodingKeys: String, CodingKey {
        case changes, nextCursor, hasMore
    }

    var count: Int
    var nextCursor: String
    var hasMore: Bool

    init(count: Int, nextCursor: String, hasMore: Bool) {
        (self.count, self.nextCursor, self.hasMore) = (count, nextCursor, hasMore)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode([Change].self, forKey: .changes).count
        nextCursor = try container.decode(String.self, forKey: .nextCursor)
        hasMore = try container.decode(Bool.self, forKey: .hasMore)
    }

    /// The outline of a page the server wrote (`{"changes":[…],…}`): the changes are counted by
    /// a scan of the JSON's structure, and only the members after them are decoded.
    init(scanning body: Data) throws {
        let opening = Data(#"{"changes":["#.utf8)
        guard body.starts(with: opening) else { throw CommandError("a pull page does not start with its changes") }
        var elements = 0
        var end: Int?
        body.withUnsafeBytes { bytes in
            var depth = 1  // inside the array
            JSONBrackets.walk(bytes, from: opening.count) { offset, opens in
                if opens && depth == 1 { elements += 1 }
                depth += opens ? 1 : -1
                if depth == 0 { end = offset }
                return depth > 0
            }
        }
        guard let end else { throw CommandError("a pull page's changes are not closed") }
        let rest = try JSONDecoder().decode(PageOutline.self, from: opening + body[(body.startIndex + end)...])
        self.init(count: elements, nextCursor: rest.nextCursor, hasMore: rest.hasMore)
    }
}
