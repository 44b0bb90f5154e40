public import SyncProtocol

/// Which live feed a viewer is connected to.
public enum EventFeed: String, Sendable {
    /// `GET /v1/events` with a bearer token: the caller's own events.
    case device
    /// `GET /admin/events` with a back-office session: what the viewer's role oversees.
    case backOffice
}

/// Someone connected to a live feed: who they are and through which feed.
public struct EventViewer: Sendable {
    public let principal: Principal
    public let feed: EventFeed
    /// `principal.visibleScopeKeys`; nil means every key.
    let visibleKeys: Set<ScopeKey>?
    /// `user:<own id>`.
    let ownKey: ScopeKey
    /// Whether the credential the stream was opened with still holds (token not revoked,
    /// session not ended, account not suspended); nil for a stream that never lapses.
    /// A throw means "cannot tell now" and keeps the stream.
    public let stillAllowed: (@Sendable () throws -> Bool)?

    public init(principal: Principal, feed: EventFeed, stillAllowed: (@Sendable () throws -> Bool)? = nil) {
        self.principal = principal
        self.feed = feed
        self.stillAllowed = stillAllowed
        visibleKeys = principal.visibleScopeKeys
        ownKey = .user(principal.userId)
    }
}

/// What the filter looks at in an outbox row (never its data beyond the collection).
public struct EventHeader: Sendable, Equatable {
    public var type: LiveEventType
    /// Scope keys of who may see it: the record's `user:`/`team:` keys and the acting users.
    public var audience: [ScopeKey]
    /// The record's collection, for record and conflict events.
    public var collection: String?

    public init(type: LiveEventType, audience: [ScopeKey], collection: String? = nil) {
        self.type = type
        self.audience = audience
        self.collection = collection
    }
}

/// Who receives which live event: a pure function of viewer and event.
///
/// | viewer | `GET /v1/events` | `GET /admin/events` |
/// | --- | --- | --- |
/// | admin | everything | everything |
/// | dispatcher | everything (every record is in its scope) | orders and conflicts |
/// | supervisor | audience meets its team: `team:<team>` or `user:<member>` | the same |
/// | field | its own (below), and others whose audience meets `user:<own id>` or `team:<own team>` | nothing (no back-office) |
///
/// A field user's personal events — orders, and syncs of its devices — reach it only with
/// `user:<own id>` in the audience.
///
/// Orders are personal: an order record carries its team's key so that office roles and the
/// team's supervisor see it, but a field user must never learn of a teammate's order, not
/// even as a `record.changed` of the `orders` collection.
public enum LiveEventFilter {
    public static func allows(_ viewer: EventViewer, _ event: EventHeader) -> Bool {
        switch (viewer.principal.role, viewer.feed) {
        case (.admin, _), (.dispatcher, .device):
            return true
        case (.dispatcher, .backOffice):
            return isOrderEvent(event.type) || isConflictEvent(event.type)
        case (.supervisor, _):
            return meets(event.audience, viewer.visibleKeys)
        case (.field, .backOffice):
            return false
        case (.field, .device):
            if isPersonal(event) { return event.audience.contains(viewer.ownKey) }
            return meets(event.audience, viewer.visibleKeys)
        }
    }

    /// Events about one user's own things: orders and device syncs.
    static func isPersonal(_ event: EventHeader) -> Bool {
        isOrderEvent(event.type) || event.collection.map(Principal.personalCollections.contains) == true || event.type == .deviceSynced
    }

    static func isOrderEvent(_ type: LiveEventType) -> Bool {
        type == .orderCreated || type == .orderStatusChanged
    }

    static func isConflictEvent(_ type: LiveEventType) -> Bool {
        type == .conflictOpened || type == .conflictResolved
    }

    /// Whether `audience` has a key the viewer sees (nil: the viewer sees every key).
    private static func meets(_ audience: [ScopeKey], _ visible: Set<ScopeKey>?) -> Bool {
        guard let visible else { return true }
        return audience.contains(where: visible.contains)
    }
}
