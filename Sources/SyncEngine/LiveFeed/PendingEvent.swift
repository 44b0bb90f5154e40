public import SyncProtocol

/// A live event about to be written to the outbox by the transaction that causes it, so it
/// reaches the feeds exactly when that transaction commits.
public struct PendingEvent: Sendable {
    public var type: LiveEventType
    /// The `data:` JSON of the event.
    public var data: JSONValue
    /// Who may receive it: callers who see any of these keys; office roles receive everything.
    public var audience: [ScopeKey]

    public init(type: LiveEventType, data: JSONValue, audience: [ScopeKey]) {
        self.type = type
        self.data = data
        self.audience = audience
    }
}
