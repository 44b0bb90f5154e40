import SyncProtocol

/// The order events of PROTOCOL "Live events", derived from changes of the `orders` collection.
enum OrderEvents {
    static let collection = "orders"
    static let statusField = "status"

    static func event(before: StoredRecord?, after: StoredRecord, seq: Int64, audience: EventAudience) -> OutboxEvent? {
        guard after.collection == collection, !after.isDeleted, let status = after.payload[statusField]?.stringValue else { return nil }
        let type: LiveEventType
        if before == nil {
            type = .orderCreated
        } else if before?.payload[statusField]?.stringValue != status {
            type = .orderStatusChanged
        } else {
            return nil
        }
        return OutboxEvent(type: type, collection: collection, recordId: after.recordId, serverSeq: seq, status: status, audience: audience)
    }
}
