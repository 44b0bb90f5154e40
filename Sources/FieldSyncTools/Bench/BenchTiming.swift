import App
import Foundation

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
