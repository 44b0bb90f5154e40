public import Foundation

/// The back-office dashboard's figures: what it needs from the database.
public protocol DashboardStore: Sendable {
    /// Counts everything, or only what concerns one team (a supervisor's view): its members'
    /// users, devices and ops, and the conflicts and orders scoped to it or raised by its members.
    /// - Parameters:
    ///   - teamId: The team to count for, or nil for the whole server.
    ///   - startOfDay: Where "today" begins for `devicesSyncedToday`.
    func counts(teamId: String?, startOfDay: Date) throws -> DashboardCounts
}

/// The figures on the back-office dashboard, all counted in one round trip.
public struct DashboardCounts: Sendable, Equatable {
    /// Users who are not suspended.
    public var activeUsers: Int
    /// Distinct devices holding a token that is neither revoked nor expired.
    public var devicesWithTokens: Int
    /// Devices whose last sync happened at or after the start of the day.
    public var devicesSyncedToday: Int
    /// Ops held by the server, waiting for a predecessor or an attachment.
    public var opsDeferred: Int
    /// Conflicts waiting for a person in the review queue.
    public var openConflicts: Int
    /// Orders waiting for a dispatcher: `orders` records with status `SUBMITTED`.
    public var ordersSubmitted: Int

    public init(
        activeUsers: Int, devicesWithTokens: Int, devicesSyncedToday: Int, opsDeferred: Int, openConflicts: Int, ordersSubmitted: Int
    ) {
        self.activeUsers = activeUsers
        self.devicesWithTokens = devicesWithTokens
        self.devicesSyncedToday = devicesSyncedToday
        self.opsDeferred = opsDeferred
        self.openConflicts = openConflicts
        self.ordersSubmitted = ordersSubmitted
    }
}
