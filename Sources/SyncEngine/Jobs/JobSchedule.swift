public import Foundation

/// When a job runs on its own: every `interval` after the start of its latest run on any
/// instance, so several instances share one schedule.
public struct JobSchedule: Sendable, Equatable {
    public let interval: TimeInterval

    public init(minutes: Int) {
        interval = TimeInterval(minutes) * 60
    }

    /// When the next run is due after a run that started at `lastStart` (now, if it never ran).
    public func nextRun(after lastStart: Date?, now: Date) -> Date {
        lastStart.map { $0.addingTimeInterval(interval) } ?? now
    }

    public func isDue(lastStart: Date?, now: Date) -> Bool {
        nextRun(after: lastStart, now: now) <= now
    }
}
