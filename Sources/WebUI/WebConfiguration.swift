public import Foundation

/// Settings of the back-office, with the defaults a deployment normally keeps.
///
/// ```swift
/// var web = WebConfiguration()
/// web.idleTimeout = 15 * 60
/// ```
public struct WebConfiguration: Sendable {
    /// A session ends after this many seconds without a request (30 minutes).
    public var idleTimeout: TimeInterval = 30 * 60
    /// A session ends this many seconds after sign-in, however active it is (12 hours).
    public var absoluteTimeout: TimeInterval = 12 * 3600
    /// Where dates are shown and "today" begins on the dashboard (the server's zone).
    public var timeZone: TimeZone = .current
    /// The clock sessions are timed by; tests replace it to let sessions expire.
    public var now: @Sendable () -> Date = { Date() }

    public init() {}
}
