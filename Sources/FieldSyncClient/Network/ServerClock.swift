import Foundation
import Synchronization

/// The server's time as the device estimates it: the device clock plus the offset measured
/// from the `Date` header of the last answer (HTTP dates have whole seconds).
///
/// Ordering and conflicts never look at a clock. The estimate stamps `occurredAt` (which the
/// server checks against its own window, so a phone whose clock is wrong by an hour still
/// syncs) and the local retention window.
final class ServerClock: Sendable {
    private let deviceNow: @Sendable () -> Date
    private let offset: Mutex<TimeInterval>

    init(deviceNow: @escaping @Sendable () -> Date, offset: TimeInterval) {
        self.deviceNow = deviceNow
        self.offset = Mutex(offset)
    }

    /// The current offset (server minus device), to persist between launches.
    var currentOffset: TimeInterval { offset.withLock { $0 } }

    func now() -> Date { deviceNow().addingTimeInterval(currentOffset) }

    /// Notes the server's `Date` header of an answer received now; unreadable dates are ignored.
    func observe(dateHeader: String?) {
        guard let dateHeader, let serverDate = Self.parseHTTPDate(dateHeader) else { return }
        let measured = serverDate.timeIntervalSince(deviceNow())
        offset.withLock { $0 = measured }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses the IMF-fixdate form every HTTP/1.1 server sends: `Tue, 03 Nov 2026 08:12:00 GMT`.
    static func parseHTTPDate(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let month = months.firstIndex(of: String(parts[2])),
            let day = Int(parts[1]), let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month + 1, day)
        (components.hour, components.minute, components.second) = (time[0], time[1], time[2])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar.date(from: components)
    }
}
