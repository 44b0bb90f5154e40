public import Foundation

/// The figures the back-office draws as charts: how ops ended day by day, how long ago devices
/// last synced, and how old the open conflicts are. Each read is one grouped query.
public protocol ActivityStore: Sendable {
    /// How the ops that reached the server in each period ended (ops still waiting are not
    /// counted); for a team, only the ops its members wrote.
    /// - Parameters:
    ///   - teamId: The team to count for, or nil for the whole server.
    ///   - boundaries: Ascending instants; period `i` runs from `boundaries[i]` up to, not
    ///     including, `boundaries[i + 1]`.
    /// - Returns: One entry per period, in order (`boundaries.count - 1` entries).
    func opOutcomes(teamId: String?, boundaries: [Date]) throws -> [OpOutcomeCounts]

    /// Devices counted by the time since their last sync; for a team, its members' devices.
    /// - Parameters:
    ///   - now: The instant ages are measured from.
    ///   - ages: Ascending ages in seconds splitting the buckets.
    /// - Returns: `ages.count + 1` counts (younger than `ages[0]`, …, at least the last age)
    ///   and the devices that never synced.
    func devicesBySyncAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> AgeDistribution

    /// Open conflicts per collection, counted by the time since they opened; for a team,
    /// those in its scope or raised by its members. Collections are sorted by name.
    func openConflictsByAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> [(collection: String, counts: [Int])]
}

/// How the ops of one period ended.
public struct OpOutcomeCounts: Sendable, Equatable {
    public var applied: Int
    public var rejected: Int
    public var conflict: Int

    public init(applied: Int = 0, rejected: Int = 0, conflict: Int = 0) {
        (self.applied, self.rejected, self.conflict) = (applied, rejected, conflict)
    }
}

/// Counts by age bucket, youngest first, and the things that have no age at all.
public struct AgeDistribution: Sendable, Equatable {
    public var counts: [Int]
    public var never: Int

    public init(counts: [Int], never: Int) {
        (self.counts, self.never) = (counts, never)
    }
}
