import Foundation
import Synchronization
import Testing

@testable import SyncEngine

@Suite("Ops-per-day counts kept for a while")
struct CachedOpOutcomesTests {
    /// Counts how often it is asked; each answer says how many times that was.
    final class CountingStore: ActivityStore {
        let calls = Mutex(0)

        func opOutcomes(teamId: String?, boundaries: [Date]) throws -> [OpOutcomeCounts] {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            return [OpOutcomeCounts(applied: call)]
        }

        func devicesBySyncAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> AgeDistribution {
            calls.withLock { $0 += 1 }
            return AgeDistribution(counts: [], never: 0)
        }

        func openConflictsByAge(teamId: String?, now: Date, ages: [TimeInterval]) throws -> [(collection: String, counts: [Int])] {
            calls.withLock { $0 += 1 }
            return []
        }
    }

    @Test("An answer is reused per team and period until its lifetime ends; other figures are never kept")
    func lifetime() throws {
        let store = CountingStore()
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let cached = CachedOpOutcomes(store, lifetime: 60, now: { clock.withLock { $0 } })
        let days = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400)]
        #expect(try cached.opOutcomes(teamId: nil, boundaries: days)[0].applied == 1)
        #expect(try cached.opOutcomes(teamId: nil, boundaries: days)[0].applied == 1)
        #expect(try cached.opOutcomes(teamId: "north", boundaries: days)[0].applied == 2)
        #expect(try cached.opOutcomes(teamId: nil, boundaries: Array(days.dropFirst()) + [Date(timeIntervalSince1970: 172_800)])[0].applied == 3)
        clock.withLock { $0 += 59 }
        #expect(try cached.opOutcomes(teamId: nil, boundaries: days)[0].applied == 1)
        clock.withLock { $0 += 1 }
        #expect(try cached.opOutcomes(teamId: nil, boundaries: days)[0].applied == 4)
        _ = try cached.devicesBySyncAge(teamId: nil, now: Date(), ages: [])
        _ = try cached.devicesBySyncAge(teamId: nil, now: Date(), ages: [])
        #expect(store.calls.withLock { $0 } == 6)
    }
}
