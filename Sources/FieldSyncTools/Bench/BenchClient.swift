import App
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A blocking JSON client over loopback for benchmarks: one request at a time per thread.
final class BenchClient: Sendable {
    private let base: String
    private let session: URLSession

    init(base: String) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration)
    }

    /// Sends a request and waits for the answer; returns status and body.
    func send(_ method: String, _ path: String, token: String? = nil, body: Data? = nil) throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("9.9.9", forHTTPHeaderField: "X-App-Version")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<(Int, Data), any Error> = .failure(CommandError("no answer"))
        session.dataTask(with: request) { data, response, error in
            if let error {
                outcome = .failure(error)
            } else {
                outcome = .success(((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            }
            done.signal()
        }.resume()
        done.wait()
        return try outcome.get()
    }
}

/// Latency samples in milliseconds, summarized as percentiles.
struct Latencies {
    private(set) var samples: [Double] = []

    mutating func add(_ milliseconds: Double) { samples.append(milliseconds) }
    mutating func add(contentsOf other: Latencies) { samples += other.samples }

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.up)) - 1)]
    }

    var summary: String {
        String(format: "p50 %.1f ms, p95 %.1f ms, p99 %.1f ms (%d samples)", percentile(50), percentile(95), percentile(99), samples.count)
    }
}

/// Milliseconds taken by `body`.
func measureMilliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

/// Runs `body(0..<count)` on `count` threads of their own at once and waits for all.
/// (`DispatchQueue.concurrentPerform` would run only one per core: simulated devices must
/// overlap the way real ones do.)
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
