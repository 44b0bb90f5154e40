import Foundation
import SyncAPI
import SyncProtocol
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Commit times and delivery times of live events, keyed by the change's `serverSeq`.
final class DeliveryLog: Sendable {
    private struct State {
        var committed: [Int64: UInt64] = [:]
        var delivered: [(seq: Int64, at: UInt64)] = []
    }

    private let state = Mutex(State())

    /// Notes that the change `seq` was committed now.
    func committed(_ seq: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.committed[seq] = now }
    }

    /// Notes that one viewer received the event of change `seq` now.
    func delivered(_ seq: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.delivered.append((seq, now)) }
    }

    var deliveredCount: Int { state.withLock { $0.delivered.count } }

    /// Milliseconds from commit to delivery, one sample per event and viewer.
    var latencies: Latencies {
        state.withLock { state in
            var latencies = Latencies()
            for delivery in state.delivered {
                guard let committed = state.committed[delivery.seq] else { continue }
                latencies.add(Double(Int64(delivery.at) - Int64(committed)) / 1_000_000)
            }
            return latencies
        }
    }
}

/// Viewers connected to `GET /v1/events` over URLSession, each stream parsed as it arrives;
/// every `record.changed` received is logged with its `serverSeq`.
final class EventFeedViewers: NSObject, URLSessionDataDelegate, Sendable {
    private struct FeedKey: Hashable {
        let session: ObjectIdentifier
        let task: Int
    }

    private let log: DeliveryLog
    private let parsers = Mutex<[FeedKey: ServerSentEventParser]>([:])
    private let sessions = Mutex<[URLSession]>([])

    init(log: DeliveryLog) {
        self.log = log
    }

    /// Opens one feed per token, spread over `sessionCount` sessions so that one delegate
    /// queue does not serialize every viewer.
    func open(base: String, tokens: [String], sessionCount: Int = 4) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = tokens.count + 1
        configuration.timeoutIntervalForRequest = 600
        let opened = (0..<sessionCount).map { _ in URLSession(configuration: configuration, delegate: self, delegateQueue: nil) }
        sessions.withLock { $0 += opened }
        for (index, token) in tokens.enumerated() {
            var request = URLRequest(url: URL(string: base + "/v1/events")!)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            opened[index % sessionCount].dataTask(with: request).resume()
        }
    }

    /// Cancels every feed (and releases this delegate, which the sessions retain).
    func close() {
        for session in sessions.withLock({ $0 }) { session.invalidateAndCancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let key = FeedKey(session: ObjectIdentifier(session), task: dataTask.taskIdentifier)
        let messages = parsers.withLock { $0[key, default: ServerSentEventParser()].feed(data) }
        for case .event(let event) in messages where event.event == LiveEventType.recordChanged.rawValue {
            guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)), let seq = json["serverSeq"]?.intValue
            else { continue }
            log.delivered(seq)
        }
    }
}
