public import Foundation

/// Deletes what the retention rules no longer require; what retention needs from the database.
///
/// A store deletes in small batches, so no statement holds locks for long.
public protocol RetentionStore: Sendable {
    /// Runs one pass up to `cutoffs`; returns how many rows each rule removed.
    func purge(_ cutoffs: RetentionCutoffs) throws -> RetentionReport
}

extension RetentionStore {
    /// Runs one pass with the cutoffs `settings` give at `now`.
    public func purge(_ settings: ServerSettings, now: Date = Date()) throws -> RetentionReport {
        try purge(RetentionCutoffs(settings: settings, now: now))
    }
}

/// How old things retention removes are, from the settings and their floors:
///
/// - op results (not deferred ones: those still wait to apply) and idempotency keys of
///   requests (orders) older than `opResultRetentionDays`;
/// - tombstones, and scope exits, older than `tombstoneRetentionDays`;
/// - live events older than a day (the live feed replays 5 minutes).
///
/// A stored setting below its floor (`ServerSettings.Limits`) counts as the floor.
public struct RetentionCutoffs: Sendable, Equatable {
    public var opResults: Date
    public var tombstones: Date
    public var events: Date

    /// How long the outbox keeps live events.
    static let eventLifetime: TimeInterval = 86_400

    public init(settings: ServerSettings, now: Date) {
        let opDays = max(settings.opResultRetentionDays, ServerSettings.Limits.opResultRetentionDays.lowerBound)
        let tombstoneDays = max(settings.tombstoneRetentionDays, ServerSettings.Limits.tombstoneRetentionDays.lowerBound)
        opResults = now.addingTimeInterval(-Double(opDays) * 86_400)
        tombstones = now.addingTimeInterval(-Double(tombstoneDays) * 86_400)
        events = now.addingTimeInterval(-Self.eventLifetime)
    }
}

/// What one retention pass removed.
public struct RetentionReport: Sendable, Equatable, CustomStringConvertible {
    public var opResults = 0
    public var tombstones = 0
    public var scopeExits = 0
    public var events = 0
    public var idempotencyKeys = 0

    public init() {}

    public var total: Int { opResults + tombstones + scopeExits + events + idempotencyKeys }

    public var description: String {
        "op results \(opResults), tombstones \(tombstones), scope exits \(scopeExits), events \(events), "
            + "idempotency keys \(idempotencyKeys)"
    }
}
