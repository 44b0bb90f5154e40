import Foundation
import HTTP
import Support
import SyncEngine
import SyncProtocol
import Synchronization
import Testing

@testable import SyncAPI

/// An outbox in memory whose notifications the test sends, counting the hub's reads.
private final class ScriptedOutbox: OutboxReader, OutboxWatch {
    private struct State {
        var rows: [OutboxEntry] = []
        var reads = 0
        var changed: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Rows read by `entries` so far.
    var reads: Int { state.withLock { $0.reads } }

    /// Commits a row and notifies, as a push does.
    func commit(_ id: Int64) {
        let changed = state.withLock { state in
            state.rows.append(
                OutboxEntry(id: id, type: .recordChanged, data: #"{"n":\#(id)}"#, audience: [.team("north")], collection: "jobs"))
            return state.changed
        }
        changed?()
    }

    func latestId() throws -> Int64 { state.withLock { $0.rows.last?.id ?? 0 } }

    func entries(after: Int64, through: Int64, limit: Int) throws -> [OutboxEntry] {
        state.withLock { state in
            state.reads += 1
            return Array(state.rows.filter { $0.id > after && $0.id <= through }.prefix(limit))
        }
    }

    func position(after lastEventId: Int64) throws -> OutboxPosition {
        state.withLock { state in
            let next = state.rows.first { $0.id > lastEventId }
            return OutboxPosition(
                issuedThrough: state.rows.last?.id ?? 0, anchored: state.rows.contains { $0.id <= lastEventId },
                next: next.map { ($0.id, Date()) })
        }
    }

    func watch(_ changed: @escaping @Sendable () -> Void) -> any OutboxWatch {
        state.withLock { $0.changed = changed }
        return self
    }

    func stop() {
        state.withLock { $0.changed = nil }
    }
}

@Suite("Live-event hub without subscribers")
struct EventHubIdleTests {
    private let viewer = EventViewer(principal: Principal(userId: "ana", role: .field, teamId: "north", deviceId: "d"), feed: .device)

    /// The event ids `subscription` sends until it has sent `count` of them (or 10 s passed).
    private func ids(from subscription: EventSubscription, count: Int) -> [Int64] {
        var ids: [Int64] = []
        let deadline = Date().addingTimeInterval(10)
        while ids.count < count, Date() < deadline {
            guard case .data(let data) = subscription.read(maxBytes: 1 << 20) else {
                Thread.sleep(forTimeInterval: 0.005)
                continue
            }
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("id: ") {
                ids.append(Int64(line.dropFirst(4)) ?? -1)
            }
        }
        return ids
    }

    /// Runs `body` with a started hub over a scripted outbox, and stops the hub after.
    private func withHub(_ body: (ScriptedOutbox, EventHub) throws -> Void) rethrows {
        let outbox = ScriptedOutbox()
        let hub = EventHub(feed: outbox, options: .init(), logger: .init(label: "test", level: .warning))
        hub.start()
        defer { hub.stop() }
        try body(outbox, hub)
    }

    @Test("Commits with nobody subscribed are not read; a feed resuming later gets them once, then live ones")
    func idleThenResume() throws {
        try withHub { outbox, hub in
            let first = try hub.subscribe(viewer, resume: .live)
            outbox.commit(1)
            #expect(ids(from: first, count: 1) == [1])
            first.close()

            let readsWhileSubscribed = outbox.reads
            outbox.commit(2)
            outbox.commit(3)
            // A read would follow each notification within microseconds; give one ample time.
            Thread.sleep(forTimeInterval: 0.2)
            #expect(outbox.reads == readsWhileSubscribed, "no subscriber, no read")

            let second = try hub.subscribe(viewer, resume: .after(1))
            outbox.commit(4)
            #expect(ids(from: second, count: 3) == [2, 3, 4])
            Thread.sleep(forTimeInterval: 0.1)
            #expect(second.queuedCount == 0, "nothing sent twice")
        }
    }

    @Test("A live subscriber after an idle spell gets the commits that follow it, none from before")
    func idleThenLive() throws {
        try withHub { outbox, hub in
            outbox.commit(1)
            outbox.commit(2)
            let subscription = try hub.subscribe(viewer, resume: .live)
            outbox.commit(3)
            #expect(ids(from: subscription, count: 1) == [3])
            Thread.sleep(forTimeInterval: 0.1)
            #expect(subscription.queuedCount == 0, "nothing sent twice")
        }
    }
}
