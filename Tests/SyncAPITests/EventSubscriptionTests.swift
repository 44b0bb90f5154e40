import Foundation
import HTTP
import SyncEngine
import SyncProtocol
import Synchronization
import Testing

@testable import SyncAPI

@Suite("Live feed subscriber queues")
struct EventSubscriptionTests {
    private let viewer = EventViewer(principal: Principal(userId: "ana", role: .field, teamId: "north", deviceId: "d"), feed: .device)

    private func event(_ id: Int64, audience: [ScopeKey] = [.team("north")]) -> LiveEvent {
        LiveEvent(OutboxEntry(id: id, type: .recordChanged, data: #"{"n": \#(id)}"#, audience: audience, collection: "jobs"))
    }

    private func text(_ chunk: StreamChunk) -> String? {
        if case .data(let data) = chunk { return String(decoding: data, as: UTF8.self) }
        return nil
    }

    private func isEnd(_ chunk: StreamChunk) -> Bool {
        if case .end = chunk { return true }
        return false
    }

    @Test("Delivers only what the viewer may see and what it has not seen, in order, several per read")
    func deliversFiltered() {
        let subscription = EventSubscription(viewer: viewer, after: 1, limit: 10) { _ in }
        #expect(subscription.deliver([event(1), event(2), event(3, audience: [.team("south")]), event(4)]))
        let read = text(subscription.read(maxBytes: 16 * 1024))
        #expect(read == "id: 2\nevent: record.changed\ndata: {\"n\": 2}\n\nid: 4\nevent: record.changed\ndata: {\"n\": 4}\n\n")
        if case .wait = subscription.read(maxBytes: 1024) {} else { Issue.record("an empty queue waits") }
    }

    @Test("A backlog goes ahead of events delivered before it, and does not use up the queue's room")
    func backlogFirst() {
        let subscription = EventSubscription(viewer: viewer, after: 0, limit: 2) { _ in }
        #expect(subscription.deliver([event(5), event(6)]))
        subscription.start(with: [event(3).bytes, event(4).bytes])
        #expect(text(subscription.read(maxBytes: 1 << 20))?.components(separatedBy: "id: ").dropFirst().map { $0.prefix(1) } == ["3", "4", "5", "6"])
    }

    @Test("A client that falls behind by more than the limit is ended and its queue dropped; the wake handler runs")
    func overflowEnds() {
        let woken = Atomic<Int>(0)
        let subscription = EventSubscription(viewer: viewer, after: 0, limit: 3) { _ in }
        subscription.setWakeHandler { woken.add(1, ordering: .relaxed) }
        #expect(subscription.deliver([event(1), event(2)]))
        #expect(!subscription.deliver([event(3), event(4)]))
        #expect(woken.load(ordering: .relaxed) == 2)
        #expect(subscription.queuedCount == 0)
        #expect(isEnd(subscription.read(maxBytes: 1024)))
    }

    @Test("A heartbeat is queued only when nothing else waits")
    func heartbeat() {
        let subscription = EventSubscription(viewer: viewer, after: 0, limit: 10) { _ in }
        subscription.ping()
        subscription.ping()
        #expect(text(subscription.read(maxBytes: 1024)) == ": ping\n\n")
        #expect(subscription.deliver([event(1)]))
        subscription.ping()
        #expect(subscription.queuedCount == 1)
    }

    @Test("Ending sends what is queued first; closing reports once")
    func endAndClose() {
        let closed = Atomic<Int>(0)
        let subscription = EventSubscription(viewer: viewer, after: 0, limit: 10) { _ in closed.add(1, ordering: .relaxed) }
        #expect(subscription.deliver([event(1)]))
        subscription.end()
        #expect(text(subscription.read(maxBytes: 1024))?.hasPrefix("id: 1\n") == true)
        #expect(isEnd(subscription.read(maxBytes: 1024)))
        subscription.close()
        subscription.close()
        #expect(closed.load(ordering: .relaxed) == 1)
    }
}
