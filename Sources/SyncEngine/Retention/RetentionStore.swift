public import Foundation

/// What retention deletes: one rule per kind of row.
public enum RetentionRule: String, CaseIterable, Sendable, Codable {
    /// Op results (not deferred ones: those still wait to apply), older than the op-result window.
    case opResults
    /// Deleted records, older than the tombstone window.
    case tombstones
    /// Records leaving a device's scope, older than the tombstone window.
    case scopeExits
    /// Stored answers of idempotent requests (orders), older than the op-result window.
    case idempotencyKeys
    /// Back-office sessions past their expiry or idle timeout.
    case webSessions
    /// Device tokens that expired longer ago than the op-result window (until then the
    /// back-office lists them as expired).
    case deviceTokens
    /// Live events in the outbox, older than a day.
    case events
}

/// Deletes what the retention rules no longer require; what retention needs from the database.
///
/// Each call is one short statement in its own transaction, so a pass holds no lock for long
/// and one stopped half-way leaves nothing half-done.
public protocol RetentionStore: Sendable {
    /// How many rows `rule` would delete now.
    func count(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs) throws -> Int

    /// Deletes at most `limit` rows `rule` covers; returns how many it deleted.
    func delete(_ rule: RetentionRule, _ cutoffs: RetentionCutoffs, limit: Int) throws -> Int
}

/// How old things retention removes are, from the settings and their floors (a stored setting
/// below its floor in `ServerSettings.Limits` counts as the floor):
///
/// - op results and idempotency keys older than `opResultRetentionDays`, and device tokens
///   that expired before then;
/// - tombstones and scope exits older than `tombstoneRetentionDays`;
/// - back-office sessions past `now` or idle since `webSessionIdle`;
/// - live events older than a day (the live feed replays 5 minutes).
public struct RetentionCutoffs: Sendable, Equatable {
    public var now: Date
    public var opResults: Date
    public var tombstones: Date
    public var events: Date
    public var webSessionIdle: Date

    /// How long the outbox keeps live events.
    static let eventLifetime: TimeInterval = 86_400

    /// - Parameter webSessionIdleTimeout: How long a back-office session may stay unused.
    public init(settings: ServerSettings, now: Date, webSessionIdleTimeout: TimeInterval) {
        let opDays = max(settings.opResultRetentionDays, ServerSettings.Limits.opResultRetentionDays.lowerBound)
        let tombstoneDays = max(settings.tombstoneRetentionDays, ServerSettings.Limits.tombstoneRetentionDays.lowerBound)
        self.now = now
        opResults = now.addingTimeInterval(-Double(opDays) * 86_400)
        tombstones = now.addingTimeInterval(-Double(tombstoneDays) * 86_400)
        events = now.addingTimeInterval(-Self.eventLifetime)
        webSessionIdle = now.addingTimeInterval(-webSessionIdleTimeout)
    }
}

/// What retention removed, per rule.
public struct RetentionReport: Sendable, Equatable, CustomStringConvertible {
    public var counts: [RetentionRule: Int] = [:]

    public init() {}

    public subscript(rule: RetentionRule) -> Int {
        get { counts[rule] ?? 0 }
        set { counts[rule] = newValue }
    }

    public var total: Int { counts.values.reduce(0, +) }

    /// The counts keyed by rule name, as a job run records them.
    public var named: [String: Int] { Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }) }

    public var description: String {
        RetentionRule.allCases.filter { counts[$0] != nil }.map { "\($0.rawValue) \(self[$0])" }.joined(separator: ", ")
    }
}
