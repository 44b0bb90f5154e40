import Dispatch
public import Foundation
public import Support
public import SyncEngine
import SyncProtocol
import Synchronization

/// The live-event fan-out of one FieldSync process.
///
/// One watch on the outbox's `NOTIFY` channel wakes the hub when any instance commits
/// events; the hub then reads every new outbox row (`id > head`) with one query and hands
/// them to the connected subscribers, each filtered for its viewer. Reads and fan-out run on
/// one serial queue, so each subscriber receives events in id order; a notification that
/// arrives while a read runs schedules exactly one more. A poll every `pollInterval` covers
/// notifications lost while the listener reconnects. With no subscriber the hub reads nothing
/// and forgets its head: under a stream of pushes each read waits for the writers in flight,
/// which would cost the database for no one. The next subscriber starts from a fresh head.
///
/// ```swift
/// let hub = EventHub(feed: PostgresOutboxReader(database: database, logger: logger), options: .init(), logger: logger)
/// hub.start()
/// let stream = try hub.subscribe(EventViewer(principal: ana, feed: .device), resume: .after(41))
/// return Response(headers: ["Content-Type": "text/event-stream"], body: .stream(stream))
/// ```
public final class EventHub: Service {
    /// Tuning of the feeds; the defaults are the protocol's.
    public struct Options: Sendable {
        /// How often an idle stream gets a `: ping` comment. Default 25 s.
        public var heartbeat: Duration = .seconds(25)
        /// How far back `Last-Event-ID` can resume; older → `event: reset`. Default 5 minutes.
        public var replayWindow: Duration = .seconds(300)
        /// Events a client may fall behind before it is disconnected (it then resumes). Default 1000.
        public var queueLimit = 1_000
        /// The most outbox rows one resume replays; more → `event: reset`. Default 10 000.
        public var replayLimit = 10_000
        /// The most bytes of events one resume replays; more → `event: reset`. Default 8 MiB.
        public var replayByteLimit = 8 << 20
        /// How often the outbox is read without a notification. Default 5 s.
        public var pollInterval: Duration = .seconds(5)
        /// Rows read per query. Default 500.
        public var batchSize = 500
        /// Streams one user may hold open at once (devices and back-office tabs together);
        /// one more is refused with `LiveFeedFull`. Default 16: a page left in a browser holds its
        /// stream until the next heartbeat shows it closed, so someone clicking through pages
        /// briefly holds several.
        public var maxStreamsPerUser = 16
        /// Streams this process holds open at once, well below the HTTP connection cap so that
        /// feeds cannot take every connection. Default 200.
        public var maxStreams = 200
        /// The clock the replay window is measured with.
        public var now: @Sendable () -> Date = { Date() }

        public init() {}
    }

    private struct State {
        /// The highest outbox id handed to subscribers; nil until first read.
        var head: Int64?
        var subscribers: [ObjectIdentifier: EventSubscription] = [:]
        var readScheduled = false
        var watch: (any OutboxWatch)?
        var running = false
    }

    public let name = "live-events"
    public let options: Options
    private let feed: any OutboxReader
    private let logger: Logger
    private let state = Mutex(State())
    /// Runs outbox reads, fan-out and heartbeats, one at a time.
    private let queue = DispatchQueue(label: "fieldsync.event-hub")
    /// Runs credential re-checks, which query the database, away from fan-out.
    private let recheckQueue = DispatchQueue(label: "fieldsync.event-hub.recheck")

    public init(feed: any OutboxReader, options: Options, logger: Logger) {
        self.feed = feed
        self.options = options
        self.logger = logger
    }

    /// Starts watching the outbox, the heartbeat and the poll.
    public func start() {
        let watch = feed.watch { [weak self] in self?.scheduleRead() }
        let started = state.withLock { state in
            guard !state.running else { return false }
            state.running = true
            state.watch = watch
            return true
        }
        guard started else { return watch.stop() }
        scheduleRead()
        schedule(every: options.heartbeat) { hub in
            hub.heartbeat()
            hub.recheckViewers()
        }
        schedule(every: options.pollInterval) { $0.scheduleRead() }
    }

    /// Stops watching and ends every stream.
    public func stop() {
        let (watch, subscribers) = state.withLock { state in
            state.running = false
            defer {
                state.watch = nil
                state.subscribers = [:]
            }
            return (state.watch, Array(state.subscribers.values))
        }
        watch?.stop()
        for subscriber in subscribers { subscriber.end() }
    }

    /// Ends the streams whose viewer's credential no longer holds. Called when accounts
    /// change (a token revoked, a user suspended) and with every heartbeat, which also
    /// catches expired tokens and ended back-office sessions.
    public func recheckViewers() {
        recheckQueue.async { [weak self] in
            guard let self else { return }
            for subscriber in self.state.withLock({ Array($0.subscribers.values) }) {
                guard let stillAllowed = subscriber.viewer.stillAllowed, (try? stillAllowed()) == false else { continue }
                subscriber.end()
                self.remove(subscriber)
                self.logger.info("live feed closed: credential no longer valid", metadata: ["user.id": subscriber.viewer.principal.userId])
            }
        }
    }

    /// The number of connected subscribers.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Connects a viewer: events after `resume`, then live ones, as a stream for the response body.
    ///
    /// The subscriber is registered before its backlog is read, at the current head H: live
    /// fan-out brings it every event above H, and the backlog (ids up to H) goes in front.
    /// - Throws: `LiveFeedFull` when the user or the server holds the most streams allowed,
    ///   or a database error (the caller answers 500; nothing stays registered).
    public func subscribe(_ viewer: EventViewer, resume: EventResume) throws -> EventSubscription {
        let latest = try head()
        let plan = try plan(for: resume)
        let after = if case .replay(let id) = plan { id } else { Int64(0) }
        let subscription = EventSubscription(viewer: viewer, after: after, limit: options.queueLimit) { [weak self] in
            self?.remove($0)
        }
        let head = try state.withLock { state in
            try admit(viewer, into: state)
            state.subscribers[ObjectIdentifier(subscription)] = subscription
            // An idle read may have dropped the head since: rows above `latest` were then
            // handed to no one, so the next read starts there.
            if state.head == nil { state.head = latest }
            return state.head ?? latest
        }
        // Rows committed while the hub was idle went unread: read them now, not at the next
        // notification or poll.
        scheduleRead()
        do {
            subscription.start(with: [ServerSentEvent.retry(milliseconds: 1000)] + (try backlog(plan, through: head, for: viewer)))
        } catch {
            remove(subscription)
            throw error
        }
        return subscription
    }

    /// Checks the caps, under the same lock that registers the stream.
    private func admit(_ viewer: EventViewer, into state: State) throws {
        guard state.subscribers.count < options.maxStreams else {
            throw LiveFeedFull(scope: .server, limit: options.maxStreams)
        }
        let userId = viewer.principal.userId
        let held = state.subscribers.values.count { $0.viewer.principal.userId == userId }
        guard held < options.maxStreamsPerUser else { throw LiveFeedFull(scope: .user, limit: options.maxStreamsPerUser) }
    }

    // MARK: - Resuming

    private func plan(for resume: EventResume) throws -> ResumePlan? {
        switch resume {
        case .live:
            return nil
        case .unrecognized:
            return .reset(reason: "Last-Event-ID is not an event id of this server")
        case .after(let id):
            let cutoff = options.now().addingTimeInterval(-options.replayWindow.seconds)
            return ResumePlan.decide(lastEventId: id, position: try feed.position(after: id), cutoff: cutoff)
        }
    }

    /// What goes ahead of live events: the visible missed events, or one `reset` carrying the
    /// head's id so that the client resumes from there after reloading.
    private func backlog(_ plan: ResumePlan?, through head: Int64, for viewer: EventViewer) throws -> [Data] {
        switch plan {
        case nil:
            return []
        case .reset(let reason):
            return [Self.reset(id: head, reason: reason)]
        case .replay(let after):
            let entries = try feed.entries(after: after, through: head, limit: options.replayLimit + 1)
            guard entries.count <= options.replayLimit else {
                return [Self.reset(id: head, reason: "more than \(options.replayLimit) events were missed")]
            }
            let events = entries.map(LiveEvent.init).filter { LiveEventFilter.allows(viewer, $0.header) }.map(\.bytes)
            guard events.reduce(0, { $0 + $1.count }) <= options.replayByteLimit else {
                return [Self.reset(id: head, reason: "more than \(options.replayByteLimit) bytes of events were missed")]
            }
            return events
        }
    }

    private static func reset(id: Int64, reason: String) -> Data {
        let data = JSONValue.object(["reason": .string(reason)]).canonicalData()
        return ServerSentEvent.encode(id: id, event: LiveEventType.reset.rawValue, data: String(decoding: data, as: UTF8.self))
    }

    // MARK: - Reading and fan-out

    /// The head, read from the outbox the first time.
    private func head() throws -> Int64 {
        if let head = state.withLock({ $0.head }) { return head }
        let latest = try feed.latestId()
        return state.withLock { state in
            if state.head == nil { state.head = latest }
            return state.head ?? latest
        }
    }

    /// Queues one read unless one is queued already (a running read does not count: it may
    /// have missed the commit that asked for this one).
    private func scheduleRead() {
        let schedule = state.withLock { state in
            guard state.running, !state.readScheduled else { return false }
            state.readScheduled = true
            return true
        }
        if schedule { queue.async { self.readNewEvents() } }
    }

    private func readNewEvents() {
        let idle = state.withLock { state in
            state.readScheduled = false
            if state.subscribers.isEmpty { state.head = nil }
            return state.subscribers.isEmpty
        }
        guard !idle else { return }
        do {
            var head = try head()
            while true {
                let entries = try feed.entries(after: head, through: .max, limit: options.batchSize)
                guard let last = entries.last else { return }
                fanOut(entries)
                head = last.id
                if entries.count < options.batchSize { return }
            }
        } catch {
            // The next notification or poll tries again; subscribers lose nothing meanwhile.
            logger.warning("reading the event outbox failed", metadata: ["error": "\(error)"])
        }
    }

    /// Hands rows to every subscriber; ends and drops those that fell too far behind.
    private func fanOut(_ entries: [OutboxEntry]) {
        let encoded = entries.map(LiveEvent.init)
        let (events, subscribers) = state.withLock { state in
            // Moving the head and taking the list together: a subscriber registered after this
            // reads these rows as its backlog, one registered before receives them here.
            let fresh = encoded.filter { $0.id > (state.head ?? 0) }
            state.head = max(state.head ?? 0, entries.last?.id ?? 0)
            return (fresh, Array(state.subscribers.values))
        }
        guard !events.isEmpty else { return }
        for subscriber in subscribers where !subscriber.deliver(events) {
            remove(subscriber)
            logger.info("live feed client fell behind and was disconnected", metadata: ["user.id": subscriber.viewer.principal.userId])
        }
    }

    private func heartbeat() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.ping() }
    }

    private func remove(_ subscription: EventSubscription) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: ObjectIdentifier(subscription)) }
    }

    /// Runs `work` on the hub's queue every `interval` while the hub runs.
    private func schedule(every interval: Duration, _ work: @escaping @Sendable (EventHub) -> Void) {
        queue.asyncAfter(deadline: .now() + interval.seconds) { [weak self] in
            guard let self, self.state.withLock({ $0.running }) else { return }
            work(self)
            self.schedule(every: interval, work)
        }
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
