/// Where a released device's history goes.
///
/// A device id belongs to the user who first signed in with it. Releasing it moves its op
/// log, upload sessions and ordering state to a retired id, so the next user to sign in with
/// the id starts afresh and never shares op ids, `clientSeq` numbers or uploads with the old one.
public enum DeviceRelease {
    /// Separates a retired id from its suffix; never part of an id a device may send
    /// (`DeviceIdentifier`), so no device can sign in with a retired id.
    public static let separator: Character = "~"

    /// `<deviceId>~released-<suffix>`.
    public static func retiredId(_ deviceId: String, suffix: String) -> String {
        "\(deviceId)\(separator)released-\(suffix)"
    }
}
