import App
import FieldSyncClient
import Foundation
import Support
import Synchronization

/// `fieldsync bench field-day`: one device's full field day synced over shaped links.
struct BenchFieldDayCommand: Command {
    let path = ["bench", "field-day"]
    let summary = "sync a full field day through a shaped relay per link: time against the link's limit, loss, photo restarts"
    let valueOptions = FieldDay.options.union(["links", "latency", "cut-every", "photo-uploads", "trace"])
    let usage = """
        Usage: fieldsync bench field-day [--links 1mbit,200kbit] [--latency 200] [--cut-every 4000000] [--photo-uploads 3]
                                         [--trace FILE] [day options]

        For each link (the same rate each way), starts a fresh server behind `fieldsync relay`
        with that rate, --latency ms added per round trip and connections cut at random every
        --cut-every bytes on average, then runs one device's field day (see fieldsync simulate)
        through it. Measures the sync after the network returns: its time against the link's
        limit (bytes each way / rate, the busier direction; also (up + down) / rate), ops lost
        (must be 0) and photos whose upload restarted from zero after a cut (must be 0).
        Also shows where the time went: requests of each kind with their summed time, and how
        long no request was out at all. Exits 1 on any loss or restart.

        Options:
          --links R,R        link rates (default 1mbit,200kbit)
          --latency MS       added round-trip time (default 200)
          --cut-every B      mean bytes between cuts (default 4000000; 0: no cuts)
          --photo-uploads N  photos the device uploads at once (default: the SDK's, 3)
          --trace FILE       write every request of the sync (start, end, kind, status, bytes)
                             to FILE.<bits per second>, a tab-separated table per link
        \(FieldDay.help)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let day = try FieldDay(arguments)
        let rates = try (arguments.value("links") ?? "1mbit,200kbit").split(separator: ",").map { try LinkShape.rate(String($0)) }
        let latency = try arguments.number("latency", 200, minimum: 0)
        let cutEvery = try arguments.number("cut-every", 4_000_000, minimum: 0)
        let uploads: Int? = arguments.value("photo-uploads") != nil ? try arguments.number("photo-uploads", 3) : nil
        let trace = arguments.value("trace")
        var clean = true
        var rows: [String] = []
        for rate in rates {
            let shape = LinkShape(
                upBitsPerSecond: rate, downBitsPerSecond: rate, latency: .milliseconds(latency), meanBytesBeforeCut: cutEvery > 0 ? cutEvery : nil)
            print("field day over \(shape)")
            let relay = Mutex<TCPRelay?>(nil)
            let atNetworkBack = Mutex(TCPRelay.Counters())
            let timeline = RequestTimeline(SocketTransport())
            let report = try Simulation.run(
                devices: 1, concurrency: 1, day: day, environment: environment,
                route: { url in
                    let started = try TCPRelay(targetPort: url.port ?? 80, shape: shape)
                    started.start()
                    relay.withLock { $0 = started }
                    return URL(string: "http://127.0.0.1:\(started.port)/")!
                },
                transport: timeline,
                configure: { configuration in uploads.map { configuration.photoUploadsInFlight = $0 } },
                networkBack: {
                    atNetworkBack.withLock { $0 = relay.withLock { $0?.totals } ?? TCPRelay.Counters() }
                    timeline.start()
                },
                log: {
                    print("  \($0)")
                    fflush(nil)
                })
            let end = relay.withLock { $0?.totals } ?? TCPRelay.Counters()
            relay.withLock { $0?.stop() }
            let start = atNetworkBack.withLock { $0 }
            let up = end.bytesUp - start.bytesUp
            let down = end.bytesDown - start.bytesDown
            let limit = Double(max(up, down)) * 8 / rate
            let sumLimit = Double(up + down) * 8 / rate
            let seconds = report.outcome.drainSeconds
            let lost = report.verdict.lost + report.outcome.failures.count
            let restarted = report.outcome.network.photosRestarted
            clean = clean && lost == 0 && report.verdict.isExact && restarted == 0
            rows.append(
                String(
                    format: "%@ +%d ms: synced in %.1f s; limit %.1f s (%.2fx), (up+down)/rate %.1f s (%.2fx); %.2f MB up, %.2f MB down; "
                        + "%d cuts; lost %d; photos restarted from zero %d; chunks sent again %d",
                    LinkShape.format(rate), latency, seconds, limit, seconds / max(limit, 0.001), sumLimit, seconds / max(sumLimit, 0.001),
                    Double(up) / 1e6, Double(down) / 1e6, end.cuts - start.cuts, lost, restarted, report.outcome.network.chunksResent))
            print(report.table)
            print("  where the sync's time went:\n" + timeline.summary(until: .seconds(seconds)))
            if let trace { try (timeline.tsv() + "\n").write(toFile: "\(trace).\(Int(rate))", atomically: true, encoding: .utf8) }
        }
        print("\nFieldSync field day over shaped links (\(day.ops) ops, \(day.photos) photos of \(day.photoBytes) B)")
        for row in rows { print(row) }
        return clean ? 0 : 1
    }
}
