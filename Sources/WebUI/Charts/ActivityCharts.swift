import Foundation
import SyncEngine
import Templating

/// The back-office's charts, read from an `ActivityStore` and drawn as `BarChart`s: how ops
/// ended over the last two weeks, how long ago devices last synced, how old open conflicts are.
struct ActivityCharts {
    let store: any ActivityStore
    let configuration: WebConfiguration

    /// Days in the ops chart, today included.
    static let days = 14
    /// Where the sync-age buckets split: 1 hour, 1 day, 7 days.
    static let syncAges: [TimeInterval] = [3600, 86_400, 7 * 86_400]
    static let syncAgeLabels = ["Under 1 hour", "1 to 24 hours", "1 to 7 days", "Over 7 days"]
    /// Where the conflict-age buckets split: 1 day, 3 days, 7 days.
    static let conflictAges: [TimeInterval] = [86_400, 3 * 86_400, 7 * 86_400]
    static let conflictAgeSeries = [
        BarChart.Series(name: "Under 1 day", style: "age-0"), BarChart.Series(name: "1 to 3 days", style: "age-1"),
        BarChart.Series(name: "3 to 7 days", style: "age-2"), BarChart.Series(name: "Over 7 days", style: "age-3"),
    ]
    /// Collections drawn one by one; the rest share an "Other" column.
    static let collectionColumns = 10

    /// Ops applied, rejected and in conflict per day over the last `days` days, for the
    /// team or the whole server.
    func dailyOutcomes(teamId: String?) throws -> TemplateValue {
        let starts = Self.dayStarts(endingAt: configuration.now(), count: Self.days, in: configuration.timeZone)
        let counts = try store.opOutcomes(teamId: teamId, boundaries: starts)
        let columns = zip(starts, counts).map { start, day in
            BarChart.Column(label: Self.dayLabel(start, in: configuration.timeZone), values: [day.applied, day.rejected, day.conflict])
        }
        let sums = [\OpOutcomeCounts.applied, \.rejected, \.conflict].map { path in BarChart.total(counts.map { $0[keyPath: path] }) }
        let chart = BarChart(
            id: "chart-outcomes", title: "Ops per day over the last \(Self.days) days, by outcome",
            description: "\(Formatting.count(sums[0])) applied, \(Formatting.count(sums[1])) rejected and \(Formatting.count(sums[2])) "
                + "in conflict, counted on the day they reached the server. The table that follows lists each day.",
            category: "Day",
            series: [
                .init(name: "Applied", style: "applied"), .init(name: "Rejected", style: "rejected"), .init(name: "In conflict", style: "conflict"),
            ],
            columns: columns)
        return chart.templateValue
    }

    /// Devices by time since their last sync, never-synced devices last.
    func syncAges(teamId: String?) throws -> TemplateValue {
        let distribution = try store.devicesBySyncAge(teamId: teamId, now: configuration.now(), ages: Self.syncAges)
        let columns =
            zip(Self.syncAgeLabels, distribution.counts).map { BarChart.Column(label: $0, values: [$1]) }
            + [BarChart.Column(label: "Never", values: [distribution.never])]
        let described = columns.map { "\($0.label): \(Formatting.count($0.values[0]))" }
        let chart = BarChart(
            id: "chart-sync-age", title: "Devices by time since their last sync",
            description: "Last sync of each device. " + described.joined(separator: "; ") + ".",
            category: "Last sync", series: [.init(name: "Devices", style: "devices")], columns: columns)
        return chart.templateValue
    }

    /// Open conflicts per collection, stacked by age, the most conflicted collection first.
    func openConflicts(teamId: String?) throws -> TemplateValue {
        let rows = try store.openConflictsByAge(teamId: teamId, now: configuration.now(), ages: Self.conflictAges)
        let columns = Self.collectionColumns(rows.map { BarChart.Column(label: $0.collection, values: $0.counts) })
        let total = BarChart.total(columns.map { BarChart.total($0.values) })
        let chart = BarChart(
            id: "chart-conflict-age", title: "Open conflicts by collection and age",
            description: columns.isEmpty
                ? "No conflicts are open."
                : "\(Formatting.counted(total, "open conflict")) in \(Formatting.counted(rows.count, "collection")), "
                    + "split by how long they have been open. The table that follows lists each collection.",
            category: "Collection", series: Self.conflictAgeSeries, columns: columns)
        return chart.templateValue
    }

    /// The largest collections first; past `collectionColumns`, the rest summed into one column.
    static func collectionColumns(_ columns: [BarChart.Column]) -> [BarChart.Column] {
        let sorted = columns.sorted { BarChart.total($0.values) > BarChart.total($1.values) }
        guard sorted.count > collectionColumns else { return sorted }
        let rest = sorted[(collectionColumns - 1)...]
        let sums = conflictAgeSeries.indices.map { index in BarChart.total(rest.map { $0.values[index] }) }
        return Array(sorted.prefix(collectionColumns - 1)) + [BarChart.Column(label: "Other (\(rest.count) collections)", values: sums)]
    }

    /// The starts of the last `count` days up to `now` in `timeZone`, then the start of the
    /// next day: `count + 1` boundaries (days are 23 or 25 hours long across a clock change).
    static func dayStarts(endingAt now: Date, count: Int, in timeZone: TimeZone) -> [Date] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        return (0...count).compactMap { calendar.date(byAdding: .day, value: $0 - count + 1, to: today) }
    }

    /// `3 Dec`.
    static func dayLabel(_ date: Date, in timeZone: TimeZone) -> String {
        var style = Date.FormatStyle(locale: Locale(identifier: "en_GB"), timeZone: timeZone).day().month(.abbreviated)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style)
    }
}
