import Foundation
public import HTTP
import SyncEngine
import SyncProtocol
import Synchronization

/// An outbox event ready to send: its header for filtering and its encoded bytes, shared by
/// every subscriber that receives it.
struct LiveEvent: Sendable {
    let id: Int64
    let header: EventHeader
    let bytes: Data

    init(_ entry: OutboxEntry) {
        id = entry.id
        header = EventHeader(type: entry.type, audience: entry.audience, collection: entry.collection)
        bytes = ServerSentEvent.encode(id: entry.id, event: entry.type.rawValue, data: entry.data)
    }
}

/// One connected client of a live feed: a bounded queue of encoded events that the HTTP
/// server drains whenever the client can take more.
///
/// Delivering never blocks: events are appended under the subscription's own lock and the
/// connection is woken. A client that falls `limit` events behind is ended instead of being
/// waited for: its queue is dropped and the stream closes, and the client reconnects with
/// `Last-Event-ID` to replay what it missed. So one stalled client never delays another.
public final class EventSubscription: ResponseStream {
    private struct State {
        /// Encoded events and comments, oldest first.
        var chunks: [Data] = []
        /// The most chunks that may wait: `limit`, plus the size of the backlog, so a replay
        /// does not use up the room live events need while the client reads it.
        var capacity: Int
        var ended = false
        var closed = false
        var wake: (@Sendable () -> Void)?
    }

    let viewer: EventViewer
    /// Events up to this id are known to the client already.
    let after: Int64
    private let state: Mutex<State>
    private let onClose: @Sendable (EventSubscription) -> Void

    /// - Parameters:
    ///   - limit: the most events waiting for the client before it is disconnected.
    ///   - onClose: called once, when the server is done with the stream.
    init(viewer: EventViewer, after: Int64, limit: Int, onClose: @escaping @Sendable (EventSubscription) -> Void) {
        self.viewer = viewer
        self.after = after
        self.state = Mutex(State(capacity: limit))
        self.onClose = onClose
    }

    /// Puts `backlog` (a replay, or a reset) ahead of anything delivered since registration.
    func start(with backlog: [Data]) {
        let wake = state.withLock { state in
            state.chunks.insert(contentsOf: backlog, at: 0)
            state.capacity += backlog.count
            return state.wake
        }
        wake?()
    }

    /// Queues those of `events` this viewer may see and wakes the connection.
    /// - Returns: false when the queue overflowed: the subscription has ended.
    func deliver(_ events: [LiveEvent]) -> Bool {
        let visible = events.filter { $0.id > after && LiveEventFilter.allows(viewer, $0.header) }
        guard !visible.isEmpty else { return true }
        let (wake, kept) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            guard !state.ended else { return (nil, true) }
            guard state.chunks.count + visible.count <= state.capacity else {
                state.chunks = []
                state.ended = true
                return (state.wake, false)
            }
            state.chunks.append(contentsOf: visible.map(\.bytes))
            return (state.wake, true)
        }
        wake?()
        return kept
    }

    /// Sends a heartbeat comment when nothing else is waiting to be sent.
    func ping() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.ended, state.chunks.isEmpty else { return nil }
            state.chunks.append(ServerSentEvent.ping)
            return state.wake
        }
        wake?()
    }

    /// Ends the stream after what is queued (server shutdown).
    func end() {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.ended = true
            return state.wake
        }
        wake?()
    }

    /// Events and comments waiting to be sent.
    var queuedCount: Int { state.withLock { $0.chunks.count } }

    // MARK: - ResponseStream

    public func read(maxBytes: Int) -> StreamChunk {
        state.withLock { state in
            guard !state.chunks.isEmpty else { return state.ended ? .end : .wait }
            // Everything that fits in one go; the first chunk even when larger (the server keeps the rest).
            var data = state.chunks[0]
            var taken = 1
            while taken < state.chunks.count, data.count + state.chunks[taken].count <= maxBytes {
                data.append(state.chunks[taken])
                taken += 1
            }
            state.chunks.removeFirst(taken)
            return .data(data)
        }
    }

    public func setWakeHandler(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    public func close() {
        let first = state.withLock { state in
            defer { state.closed = true }
            state.ended = true
            state.chunks = []
            return !state.closed
        }
        if first { onClose(self) }
    }
}
