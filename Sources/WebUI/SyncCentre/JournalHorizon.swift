import Foundation
import SyncEngine

/// How far back a device's journal goes: retention removes op results (deferred ones excepted)
/// older than the op-result window, and the sync centre names that rather than leaving the
/// older entries silently missing.
struct JournalHorizon {
    /// The retention window in days, its floor applied as the retention job applies it.
    let days: Int
    /// Entries received before this are removed by retention.
    let cutoff: Date

    init(settings: ServerSettings, now: Date = Date()) {
        days = max(settings.opResultRetentionDays, ServerSettings.Limits.opResultRetentionDays.lowerBound)
        cutoff = RetentionCutoffs(settings: settings, now: now, webSessionIdleTimeout: 0).opResults
    }

    /// For a device first seen at `firstSeen`: complete when that is inside the window.
    func text(firstSeen: Date?, timeZone: TimeZone) -> String {
        if let firstSeen, firstSeen >= cutoff {
            return "Journal complete since this device first synced on \(Formatting.date(firstSeen, in: timeZone)); "
                + "retention removes entries after \(days) days."
        }
        return "Journal kept since \(Formatting.date(cutoff, in: timeZone)); older entries removed by retention (\(days) days). "
            + "Waiting changes are kept until they apply."
    }

    /// For the device list: the window every journal keeps.
    func summary(timeZone: TimeZone) -> String {
        "Journals keep \(days) days, since \(Formatting.date(cutoff, in: timeZone)); older entries are removed by retention."
    }
}
