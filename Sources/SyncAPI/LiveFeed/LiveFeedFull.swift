/// A live feed refused because too many streams are open: the user's own (`scope` `.user`),
/// or all of this server's (`.server`). Answered 429 `TOO_MANY_STREAMS` with `Retry-After`.
public struct LiveFeedFull: Error, Sendable, Equatable {
    public enum Scope: String, Sendable {
        case user
        case server
    }

    public let scope: Scope
    public let limit: Int

    /// Seconds a client waits before trying again: a closed tab or a dropped device frees its
    /// stream within a heartbeat.
    public var retryAfterSeconds: Int { scope == .user ? 30 : 10 }
}
