public import Foundation

/// Dates travel as ISO 8601 `timestamptz` text in UTC with microseconds (PostgreSQL's precision),
/// e.g. `2024-03-01 08:30:00.250000+00`.
///
/// Decoding accepts what PostgreSQL prints under `DateStyle=ISO` (pinned on every connection) for
/// `timestamptz` with any offset, `timestamp` (read as UTC), `date` (midnight UTC), ` BC` years and
/// `infinity`/`-infinity` (`Date.distantFuture`/`Date.distantPast`). Formatting is done with integer
/// calendar arithmetic, not a `DateFormatter`, so it is exact and allocation-light.
extension Date: PostgresEncodable, PostgresDecodable {
    public var postgresText: String? {
        let micros = Int64((timeIntervalSince1970 * 1_000_000).rounded())
        let (days, microOfDay) = micros.floorDivided(by: 86_400_000_000)
        let (year, month, day) = CivilCalendar.date(fromDays: days)
        let seconds = microOfDay / 1_000_000
        let era = year > 0 ? "" : " BC"
        return "\(pad(year > 0 ? year : 1 - year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
            + "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(microOfDay % 1_000_000, 6))+00\(era)"
    }

    public init(postgresText: String) throws {
        switch postgresText {
        case "infinity": self = .distantFuture
        case "-infinity": self = .distantPast
        default:
            var scanner = TimestampScanner(Array(postgresText.utf8))
            guard let micros = scanner.microsecondsSinceEpoch() else { throw PostgresError.decoding(postgresText, as: Date.self) }
            self.init(timeIntervalSince1970: Double(micros) / 1_000_000)
        }
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

extension Int64 {
    /// Quotient rounded toward negative infinity, and the non-negative remainder.
    fileprivate func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = ((self % divisor) + divisor) % divisor
        return ((self - remainder) / divisor, remainder)
    }
}

/// Proleptic Gregorian day numbers relative to 1970-01-01 (Howard Hinnant's `days_from_civil`).
private enum CivilCalendar {
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func date(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Reads `YYYY-MM-DD[ HH:MM:SS[.ffffff]][±HH[:MM[:SS]]][ BC]` byte by byte.
private struct TimestampScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func microsecondsSinceEpoch() -> Int64? {
        guard var year = number(minDigits: 4), skip("-"), let month = number(digits: 2), skip("-"), let day = number(digits: 2) else {
            return nil
        }
        var micros: Int64 = 0
        if skip(" ") || skip("T") {
            guard let time = timeOfDay() else { return nil }
            micros = time
        }
        if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            guard let offset = utcOffsetSeconds() else { return nil }
            micros -= offset * 1_000_000
        }
        if skip(" BC") { year = 1 - year }
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day) else { return nil }
        return CivilCalendar.days(year: year, month: month, day: day) * 86_400_000_000 + micros
    }

    private mutating func timeOfDay() -> Int64? {
        guard let hours = number(digits: 2), skip(":"), let minutes = number(digits: 2), skip(":"), let seconds = number(digits: 2) else {
            return nil
        }
        var fraction: Int64 = 0
        if skip(".") {
            let start = index
            guard let digits = number(minDigits: 1), index - start <= 6 else { return nil }
            fraction = digits
            for _ in (index - start)..<6 { fraction *= 10 }
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1_000_000 + fraction
    }

    private mutating func utcOffsetSeconds() -> Int64? {
        let negative = bytes[index] == UInt8(ascii: "-")
        index += 1
        guard var seconds = number(digits: 2).map({ $0 * 3600 }) else { return nil }
        for unit: Int64 in [60, 1] where skip(":") {
            guard let part = number(digits: 2) else { return nil }
            seconds += part * unit
        }
        return negative ? -seconds : seconds
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func skip(_ literal: String) -> Bool {
        let expected = Array(literal.utf8)
        guard bytes[index...].starts(with: expected) else { return false }
        index += expected.count
        return true
    }

    private mutating func number(digits: Int) -> Int64? {
        let start = index
        guard let value = number(minDigits: digits), index - start == digits else { return nil }
        return value
    }

    private mutating func number(minDigits: Int) -> Int64? {
        var value: Int64 = 0
        let start = index
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), index - start < 18 {
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            index += 1
        }
        return index - start >= minDigits ? value : nil
    }
}
