public import Foundation

/// Where a client asked a live feed to start.
public enum EventResume: Sendable, Equatable {
    /// No `Last-Event-ID`: events from now on.
    case live
    /// After the event with this id.
    case after(Int64)
    /// A `Last-Event-ID` this server never issues (not a number).
    case unrecognized

    /// From the `Last-Event-ID` header, or the `lastEventId` query argument of EventSource
    /// polyfills that cannot set headers.
    public init(header: String?) {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            self = .live
            return
        }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let id = Int64(text) else {
            self = .unrecognized
            return
        }
        self = .after(id)
    }
}

/// How a feed resuming after `Last-Event-ID` starts: replaying what the client missed, or
/// one `reset` telling it to reload because that cannot be done without loss.
public enum ResumePlan: Equatable, Sendable {
    case replay(after: Int64)
    case reset(reason: String)

    /// Replays only when every event after `lastEventId` is provably still in the outbox and
    /// the oldest of them is inside the replay window (`cutoff` = now − window).
    ///
    /// Retention deletes the oldest rows first, so a surviving row at or below the client's
    /// id proves nothing after it was deleted; with no such row, only a client that has seen
    /// every id ever issued can be sure it missed nothing.
    public static func decide(lastEventId: Int64, position: OutboxPosition, cutoff: Date) -> ResumePlan {
        if lastEventId > position.issuedThrough {
            return .reset(reason: "Last-Event-ID \(lastEventId) was never issued by this server")
        }
        guard let next = position.next else {
            if position.anchored || lastEventId == position.issuedThrough { return .replay(after: lastEventId) }
            return .reset(reason: "the events after \(lastEventId) are no longer kept")
        }
        guard position.anchored else { return .reset(reason: "the events after \(lastEventId) are no longer kept") }
        guard next.createdAt >= cutoff else {
            return .reset(reason: "the events after \(lastEventId) are older than the replay window")
        }
        return .replay(after: lastEventId)
    }
}
