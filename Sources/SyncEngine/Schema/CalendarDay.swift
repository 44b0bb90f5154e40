import Foundation

/// A day written `YYYY-MM-DD`, as date fields and the back-office forms take it.
public enum CalendarDay {
    /// Whether `text` is exactly `YYYY-MM-DD` and names a day the calendar has (not
    /// `2026-02-30`, which a lenient date parser rolls over into March).
    public static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), year >= 1, (1...12).contains(month)
        else { return false }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
            let days = calendar.range(of: .day, in: .month, for: first)
        else { return false }
        return days.contains(day)
    }
}
