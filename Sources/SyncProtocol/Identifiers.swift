/// Rules for ids chosen by devices (op ids, record ids, entity keys, attachment ids, device ids).
///
/// PROTOCOL.md: strings of 1–128 characters from `[A-Za-z0-9._:-]` (UUIDs recommended).
public enum DeviceIdentifier {
    /// The longest id accepted.
    public static let maxLength = 128

    /// Whether `id` is a well-formed device-chosen id.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= maxLength && bytes.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

/// A user's role. `field` users sync from devices, `supervisor`s read their team,
/// `dispatcher`s run orders and the conflict queue, `admin`s do everything.
public enum Role: String, Codable, Sendable, Hashable, CaseIterable {
    case field, supervisor, dispatcher, admin

    /// Dispatchers and admins: they see every record and may write any of them.
    public var isOffice: Bool { self == .dispatcher || self == .admin }
}
