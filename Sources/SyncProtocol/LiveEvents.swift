/// The `event:` names of the live event streams (`GET /v1/events`, `GET /admin/events`).
public struct LiveEventType: RawRepresentable, Codable, Sendable, Hashable {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let orderCreated = LiveEventType(rawValue: "order.created")
    public static let orderStatusChanged = LiveEventType(rawValue: "order.status_changed")
    public static let recordChanged = LiveEventType(rawValue: "record.changed")
    public static let conflictOpened = LiveEventType(rawValue: "conflict.opened")
    public static let conflictResolved = LiveEventType(rawValue: "conflict.resolved")
    public static let deviceSynced = LiveEventType(rawValue: "device.synced")
    public static let attachmentCompleted = LiveEventType(rawValue: "attachment.completed")
    public static let settingsChanged = LiveEventType(rawValue: "settings.changed")
    /// Sent once when `Last-Event-ID` is older than the replay window: reload.
    public static let reset = LiveEventType(rawValue: "reset")
}

/// `data` of a `record.changed` event.
public struct RecordChangedEvent: Codable, Sendable, Hashable {
    public var collection: String
    public var recordId: String
    public var serverSeq: Int64

    public init(collection: String, recordId: String, serverSeq: Int64) {
        self.collection = collection
        self.recordId = recordId
        self.serverSeq = serverSeq
    }
}

/// `data` of `conflict.opened` and `conflict.resolved` events.
public struct ConflictEvent: Codable, Sendable, Hashable {
    public var conflictId: String
    public var collection: String
    public var recordId: String

    public init(conflictId: String, collection: String, recordId: String) {
        self.conflictId = conflictId
        self.collection = collection
        self.recordId = recordId
    }
}

/// `data` of `order.created` and `order.status_changed` events.
public struct OrderEvent: Codable, Sendable, Hashable {
    public var orderId: String
    public var status: String
    public var serverSeq: Int64

    public init(orderId: String, status: String, serverSeq: Int64) {
        self.orderId = orderId
        self.status = status
        self.serverSeq = serverSeq
    }
}
