import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `GET /v1/admin/preview/settings?<setting>=<value>…`: what saving these settings would do,
/// from the live data, for administrators' scripts. Changes nothing.
///
/// Settings not named keep their current values; an unknown name or a value the settings
/// page would refuse is 400 `VALIDATION_FAILED` with the name in `details.field`; anyone
/// but an administrator gets 403 `FORBIDDEN`.
public struct SettingsPreviewController: Sendable {
    let previewer: SettingsPreviewer

    /// The longest version text accepted, in characters.
    static let maxVersionLength = 64
    /// How much of an unknown parameter's name an answer repeats: the name is the caller's.
    static let maxEchoedNameLength = 64

    public init(previewer: SettingsPreviewer) {
        self.previewer = previewer
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/admin/preview/settings", admission: .authenticated, handler: preview)
    }

    @Sendable func preview(_ device: DeviceContext) throws -> Response {
        guard device.identity.user.role == .admin else { throw APIError.forbidden("Only administrators preview settings.") }
        let proposed = try Self.proposed(device.request.query, over: device.settings)
        let preview = try previewer.preview(proposed)
        return Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(Self.body(preview).canonicalData()))
    }

    /// The current settings with the query's values applied.
    /// - Throws: 400 `VALIDATION_FAILED` naming the first offending setting.
    static func proposed(_ query: [String: String], over current: ServerSettings) throws -> ServerSettings {
        var settings = current
        for (name, value) in query.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "opResultRetentionDays":
                settings.opResultRetentionDays = try days(value, name, ServerSettings.Limits.opResultRetentionDays)
            case "tombstoneRetentionDays":
                settings.tombstoneRetentionDays = try days(value, name, ServerSettings.Limits.tombstoneRetentionDays)
            case "minSupportedAppVersion":
                settings.minSupportedAppVersion = try version(value, name)
            case "hardMinimumAppVersion":
                settings.hardMinimumAppVersion = value.isEmpty ? nil : try version(value, name)
            default:
                throw APIError.validationFailed(
                    field: String(name.prefix(maxEchoedNameLength)),
                    "Only opResultRetentionDays, tombstoneRetentionDays, minSupportedAppVersion and hardMinimumAppVersion can be previewed.")
            }
        }
        if let hard = settings.hardMinimumAppVersion.flatMap(AppVersion.init), let minimum = AppVersion(settings.minSupportedAppVersion),
            minimum < hard
        {
            throw APIError.validationFailed(
                field: "hardMinimumAppVersion", "The emergency minimum must not be above the minimum supported version (\(minimum)).")
        }
        return settings
    }

    private static func days(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw APIError.validationFailed(field: name, "\(name) must be a whole number of days from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }

    private static func version(_ text: String, _ name: String) throws -> String {
        guard text.unicodeScalars.count <= maxVersionLength, AppVersion(text) != nil else {
            throw APIError.validationFailed(field: name, "\(name) must be a version such as 2.3.0.")
        }
        return text
    }

    // MARK: - Body

    static func body(_ preview: SettingsPreview) -> JSONValue {
        let settings = preview.settings
        return [
            "settings": [
                "opResultRetentionDays": .int(Int64(settings.opResultRetentionDays)),
                "tombstoneRetentionDays": .int(Int64(settings.tombstoneRetentionDays)),
                "minSupportedAppVersion": .string(settings.minSupportedAppVersion),
                "hardMinimumAppVersion": settings.hardMinimumAppVersion.map(JSONValue.string) ?? .null,
            ],
            "retention": [
                "deletions": .object(preview.deletions.named.mapValues { .int(Int64($0)) }),
                "fullRedownload": group(preview.fullRedownload),
            ],
            "minimumVersion": group(preview.belowMinimum),
            "emergencyMinimum": group(preview.refused),
        ]
    }

    private static func group(_ group: DeviceGroup) -> JSONValue {
        [
            "count": .int(Int64(group.count)), "users": .int(Int64(group.users)), "deferredOps": .int(Int64(group.deferredOps)),
            "incompleteUploads": .int(Int64(group.incompleteUploads)),
            "devices": .array(
                group.devices.map { device in
                    [
                        "deviceId": .string(device.deviceId), "userId": device.userId.map(JSONValue.string) ?? .null,
                        "username": device.username.map(JSONValue.string) ?? .null, "teamId": device.teamId.map(JSONValue.string) ?? .null,
                        "appVersion": device.appVersion.map(JSONValue.string) ?? .null,
                        "lastSyncAt": device.lastSyncAt.map { .string(RFC3339.string(from: $0)) } ?? .null,
                        "deferredOps": .int(Int64(device.deferredOps)), "incompleteUploads": .int(Int64(device.incompleteUploads)),
                    ]
                }),
        ]
    }
}
