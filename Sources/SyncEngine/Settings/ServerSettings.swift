import Foundation

/// Operator settings kept in the `settings` table, one row per key, with defaults for
/// every key that was never set. The back-office edits them; devices read them
/// through `GET /v1/config` and the gating fields of every sync response.
public struct ServerSettings: Codable, Sendable, Equatable {
    /// Apps below this version still sync but stop creating records.
    public var minSupportedAppVersion = "2.0.0"
    /// Emergency floor: apps below it get 426 on sync calls. Normally unset.
    public var hardMinimumAppVersion: String?
    public var maintenanceMode = false
    /// Seconds sent in `Retry-After` while in maintenance.
    public var maintenanceRetryAfterSeconds = 300
    public var maxOpsPerPush = 50
    public var maxPullLimit = 500
    /// Suggested upload chunk size.
    public var chunkBytes = 262_144
    public var maxAttachmentBytes = 52_428_800
    public var maxAttachmentBytesPerRecord = 157_286_400
    /// How long devices keep synced data locally.
    public var localRetentionDays = 14
    /// How long stored op results answer replays (at least `Limits.opResultRetentionDays`' floor).
    public var opResultRetentionDays = 30
    /// Inactivity after which an upload session expires.
    public var uploadSessionHours = 72
    /// How long tombstones are kept (at least as long as cursors live: `Limits.tombstoneRetentionDays`).
    public var tombstoneRetentionDays = 60
    /// How old an op's `occurredAt` may be.
    public var occurredAtWindowDays = 30
    public var deviceTokenLifetimeDays = 90
    /// Sync calls a device may make per second, sustained, and in a burst.
    public var deviceRequestsPerSecond = 20
    public var deviceRequestBurst = 60
    /// Minutes between scheduled runs of each background job (see `JobSchedule`).
    public var retentionJobMinutes = 60
    /// The `sweeps` job's, under the name it had when it removed only expired uploads, so saved settings keep applying.
    public var uploadSessionsJobMinutes = 60
    public var liveFeedOutboxJobMinutes = 10
    public var recordMigrationJobMinutes = 60

    public init() {}

    /// Upload-session inactivity window in force: a stored value below the floor PROTOCOL.md
    /// promises (`Limits.uploadSessionHours`) counts as the floor.
    public var effectiveUploadSessionHours: Int { max(uploadSessionHours, Limits.uploadSessionHours.lowerBound) }

    /// Reads stored keys over the defaults; unknown keys are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ServerSettings()
        func value<T: Decodable>(_ key: CodingKeys, _ fallback: T) throws -> T {
            try container.decodeIfPresent(T.self, forKey: key) ?? fallback
        }
        minSupportedAppVersion = try value(.minSupportedAppVersion, defaults.minSupportedAppVersion)
        hardMinimumAppVersion = try container.decodeIfPresent(String.self, forKey: .hardMinimumAppVersion)
        maintenanceMode = try value(.maintenanceMode, defaults.maintenanceMode)
        maintenanceRetryAfterSeconds = try value(.maintenanceRetryAfterSeconds, defaults.maintenanceRetryAfterSeconds)
        maxOpsPerPush = try value(.maxOpsPerPush, defaults.maxOpsPerPush)
        maxPullLimit = try value(.maxPullLimit, defaults.maxPullLimit)
        chunkBytes = try value(.chunkBytes, defaults.chunkBytes)
        maxAttachmentBytes = try value(.maxAttachmentBytes, defaults.maxAttachmentBytes)
        maxAttachmentBytesPerRecord = try value(.maxAttachmentBytesPerRecord, defaults.maxAttachmentBytesPerRecord)
        localRetentionDays = try value(.localRetentionDays, defaults.localRetentionDays)
        opResultRetentionDays = try value(.opResultRetentionDays, defaults.opResultRetentionDays)
        uploadSessionHours = try value(.uploadSessionHours, defaults.uploadSessionHours)
        tombstoneRetentionDays = try value(.tombstoneRetentionDays, defaults.tombstoneRetentionDays)
        occurredAtWindowDays = try value(.occurredAtWindowDays, defaults.occurredAtWindowDays)
        deviceTokenLifetimeDays = try value(.deviceTokenLifetimeDays, defaults.deviceTokenLifetimeDays)
        deviceRequestsPerSecond = try value(.deviceRequestsPerSecond, defaults.deviceRequestsPerSecond)
        deviceRequestBurst = try value(.deviceRequestBurst, defaults.deviceRequestBurst)
        retentionJobMinutes = try value(.retentionJobMinutes, defaults.retentionJobMinutes)
        uploadSessionsJobMinutes = try value(.uploadSessionsJobMinutes, defaults.uploadSessionsJobMinutes)
        liveFeedOutboxJobMinutes = try value(.liveFeedOutboxJobMinutes, defaults.liveFeedOutboxJobMinutes)
        recordMigrationJobMinutes = try value(.recordMigrationJobMinutes, defaults.recordMigrationJobMinutes)
    }
}
