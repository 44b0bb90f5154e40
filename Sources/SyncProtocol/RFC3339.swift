public import Foundation

/// RFC 3339 timestamps as the protocol writes them (`2026-11-03T08:12:00Z`, UTC).
public enum RFC3339 {
    /// Formats `date` in UTC with whole seconds.
    public static func string(from date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// Parses a timestamp with `Z` or a numeric offset, with or without fractional seconds.
    ///
    /// - Returns: `nil` for anything that is not RFC 3339.
    public static func date(from string: String) -> Date? {
        if let date = try? Date(string, strategy: .iso8601) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string)
    }
}
