import Foundation
import SyncProtocol

/// How values read on back-office pages.
enum Formatting {
    /// A role as people say it.
    static func roleName(_ role: Role) -> String {
        switch role {
        case .admin: "Administrator"
        case .dispatcher: "Dispatcher"
        case .supervisor: "Supervisor"
        case .field: "Field"
        }
    }

    /// `12 Mar 2026, 14:05` in `timeZone`.
    static func dateTime(_ date: Date, in timeZone: TimeZone) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .shortened, locale: Locale(identifier: "en_GB"), timeZone: timeZone)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style)
    }

    /// An RFC 3339 timestamp as `dateTime` words it; text that does not parse as one is
    /// shown as it is.
    static func dateTime(rfc3339 text: String, in timeZone: TimeZone) -> String {
        RFC3339.date(from: text).map { dateTime($0, in: timeZone) } ?? text
    }

    /// `12 Mar 2026` in `timeZone`.
    static func date(_ date: Date, in timeZone: TimeZone) -> String {
        var style = Date.FormatStyle(date: .abbreviated, time: .omitted, locale: Locale(identifier: "en_GB"), timeZone: timeZone)
        style.calendar = Calendar(identifier: .gregorian)
        return date.formatted(style)
    }

    /// The start of the calendar day that holds `date`, in `timeZone`.
    static func startOfDay(_ date: Date, in timeZone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.startOfDay(for: date)
    }

    /// A byte count in binary units, e.g. `50 MiB` or `1.5 GiB`.
    static func bytes(_ count: Int) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let number = value.rounded() == value ? String(Int(value)) : String(format: "%.1f", value)
        return "\(number) \(units[unit])"
    }

    /// A whole number with thousands separators: `12,480`.
    static func count(_ value: Int) -> String {
        value.formatted(.number.locale(Locale(identifier: "en_US")))
    }

    /// `1 field`, `3 fields`: a count with its noun.
    static func counted(_ value: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count(value)) \(value == 1 ? singular : plural ?? singular + "s")"
    }
}
