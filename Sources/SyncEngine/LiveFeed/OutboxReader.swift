public import Foundation
public import SyncProtocol

/// The event outbox as the live feeds read it; what they need from the database.
///
/// A reader serves only settled rows: ids no transaction still running can write below
/// (docs/decisions/0004), so reading `id > last` never skips a row that commits later.
public protocol OutboxReader: Sendable {
    /// The highest settled event id (0 when there is none).
    func latestId() throws -> Int64

    /// Settled rows with `after < id <= through`, oldest first, at most `limit`.
    func entries(after: Int64, through: Int64, limit: Int) throws -> [OutboxEntry]

    /// The outbox around `lastEventId`, to decide whether a feed can resume there.
    func position(after lastEventId: Int64) throws -> OutboxPosition

    /// Calls `changed` (on another thread) whenever a transaction that wrote events commits,
    /// on this or any other FieldSync process of the database, until the watch is stopped.
    /// Notifications can be lost while the watch reconnects: readers also poll.
    func watch(_ changed: @escaping @Sendable () -> Void) -> any OutboxWatch
}

/// A running watch of the outbox.
public protocol OutboxWatch: Sendable {
    func stop()
}

/// One outbox row as the live feeds read it.
public struct OutboxEntry: Sendable, Equatable {
    /// The event's stream id (`id:` on the wire); grows in the order feeds serve events.
    public var id: Int64
    public var type: LiveEventType
    /// The `data:` JSON, one line.
    public var data: String
    /// Who may see it: the record's scope keys and the acting users.
    public var audience: [ScopeKey]
    /// `data.collection` when the event has one (record and conflict events).
    public var collection: String?

    public init(id: Int64, type: LiveEventType, data: String, audience: [ScopeKey], collection: String?) {
        self.id = id
        self.type = type
        self.data = data
        self.audience = audience
        self.collection = collection
    }
}

/// What the outbox holds around a client's `Last-Event-ID`, to decide whether it can resume.
public struct OutboxPosition: Sendable, Equatable {
    /// At or above the highest event id ever handed out (committed or not); no id above it
    /// was issued.
    public var issuedThrough: Int64
    /// Whether a row with an id at or below the client's still exists. Retention deletes the
    /// oldest rows first, so while one does, nothing after it has been deleted.
    public var anchored: Bool
    /// The first row after the client's id: the oldest event a resume must replay.
    public var next: (id: Int64, createdAt: Date)?

    public init(issuedThrough: Int64, anchored: Bool, next: (id: Int64, createdAt: Date)?) {
        self.issuedThrough = issuedThrough
        self.anchored = anchored
        self.next = next
    }

    public static func == (lhs: OutboxPosition, rhs: OutboxPosition) -> Bool {
        lhs.issuedThrough == rhs.issuedThrough && lhs.anchored == rhs.anchored && lhs.next?.id == rhs.next?.id
            && lhs.next?.createdAt == rhs.next?.createdAt
    }
}
