import Foundation
import SQLite
import SyncProtocol

/// Where the device's session stands.
enum Session: String, Sendable {
    case signedOut = "signed_out"
    case active
    /// The server answered 401: the token no longer works.
    case expired
    /// The server answered 403 `ACCOUNT_SUSPENDED`.
    case suspended
}

/// The limits the device works within, from `GET /v1/config` (PROTOCOL.md's defaults
/// until the first sign-in).
struct ServerLimits: Codable, Sendable, Equatable {
    var maxOpsPerPush = 50
    var maxPullLimit = 500
    var chunkBytes = 262_144
    var maxAttachmentBytes: Int64 = 52_428_800
    var maxAttachmentBytesPerRecord: Int64 = 157_286_400
    var localRetentionDays = 14

    init() {}

    init(_ config: ConfigResponse) {
        maxOpsPerPush = max(config.maxOpsPerPush, 1)
        maxPullLimit = max(config.maxPullLimit, 1)
        // PROTOCOL.md: chunks of 64 KiB to 4 MiB.
        chunkBytes = min(max(config.chunkBytes, 65_536), 4_194_304)
        maxAttachmentBytes = Int64(config.maxAttachmentBytes)
        maxAttachmentBytesPerRecord = Int64(config.maxAttachmentBytesPerRecord)
        localRetentionDays = max(config.localRetentionDays, 0)
    }
}

/// The `device` row.
struct DeviceRow: Sendable {
    var deviceId: String
    var lastClientSeq: Int64
    var token: String?
    var user: UserInfo?
    var session: Session
    var cursor: String?
    var isResyncing: Bool
    var limits: ServerLimits
    var limitsFetchedAt: Date?
    var minSupportedAppVersion: String?
    var upgradeMinimum: String?
    var upgradeAppVersion: String?
    var clockOffset: TimeInterval
    var lastSyncedAt: Date?

    init(_ row: Row) throws {
        deviceId = try row.decode("device_id")
        lastClientSeq = try row.decode("last_client_seq")
        token = try row.decode("token")
        user = try StoredJSON.decode(UserInfo.self, row, "user_json")
        session = Session(rawValue: try row.decode("session", as: String.self)) ?? .signedOut
        cursor = try row.decode("cursor")
        isResyncing = try row.decode("resyncing")
        limits = try StoredJSON.decode(ServerLimits.self, row, "limits_json") ?? ServerLimits()
        limitsFetchedAt = try row.decode("limits_fetched_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
        minSupportedAppVersion = try row.decode("min_supported_app_version")
        upgradeMinimum = try row.decode("upgrade_minimum")
        upgradeAppVersion = try row.decode("upgrade_app_version")
        clockOffset = try row.decode("clock_offset")
        lastSyncedAt = try row.decode("last_synced_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
    }

    /// Whether a 426 stands against `appVersion` (an updated app gets a fresh try).
    func upgradeRequired(for appVersion: String) -> Bool {
        upgradeAppVersion == appVersion
    }

    /// Whether `appVersion` may create records under the server's `minSupportedAppVersion`.
    func mayCreate(appVersion: String) -> Bool {
        guard let minimum = minSupportedAppVersion.flatMap(AppVersion.init) else { return true }
        return AppVersion(appVersion).map { $0 >= minimum } ?? false
    }
}

/// The counts behind the sync indicator, read in one query.
struct StoreFacts: Sendable, Equatable {
    var pendingChanges = 0
    var pendingPhotos = 0
    var issues = 0
}
