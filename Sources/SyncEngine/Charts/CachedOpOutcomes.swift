public import Foundation
import Synchronization

/// An `ActivityStore` that keeps each answer of `opOutcomes` for `lifetime` seconds, per team
/// and period. Counting two weeks of ops reads every op of those weeks (about 100,000 rows on
/// the benchmark's data set, 150–250 ms on a loaded machine); a trend chart may lag a minute
/// behind, while the dashboard's cards stay live. The other figures pass straight through.
///
/// ```swift
/// let activity = CachedOpOutcomes(PostgresActivityStore(database: database), lifetime: 60)
/// ```
public final class CachedOpOutcomes: ActivityStore {
    private let store: any ActivityStore
    private let lifetime: TimeInterval
    private let now: @Sendable () -> Date
    private let entries = Mutex<[Key: (expires: Date, counts: [OpOutcomeCounts])]>([:])

    private struct Key: Hashable {
        let teamId: String?
        let boundaries: [Date]
    }

    public init(_ store: any ActivityStore, lifetime: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }) {
        (self.store, self.lifetime, self.now) = (store, lifetime, now)
    }

    public func opOutcomes(teamId: String?, boundaries: [Date]) throws -> [OpOutcomeCounts] {
        let key = Key(teamId: teamId, boundaries: boundaries)
        let time = now()
        if let entry = entries.withLock({ $0[key] }), entry.expires > time { return entry.counts }
        let counts = try store.opOutcomes(teamId: teamId, boundaries: boundaries)
        entries.withLock { entries in
            // Expired entries go as new ones arrive, so the cache holds at most one per team and day.
            entries = entries.filter { $0.value.expires > time }
            entries[key] = (time + lifetime, counts)
        }
        return counts
    }

    public func devicesBySyncAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> AgeDistribution {
        try store.devicesBySyncAge(teamId: teamId, now: now, ages: ages)
    }

    public func openConflictsByAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> [(collection: String, counts: [Int])] {
        try store.openConflictsByAge(teamId: teamId, now: now, ages: ages)
    }
}
