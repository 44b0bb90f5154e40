import Foundation
import SyncEngine
import SyncProtocol
import Templating

/// One op of a journal or a record history, worded for people: the same values feed the
/// page, the CSV and the JSON export.
struct JournalRow: Encodable {
    let deviceId: String
    let opId: String
    let clientSeq: Int64
    let collection: String
    let recordId: String
    let type: String?
    let fields: [String]
    let author: String?
    let status: String
    /// The plain-language status shown on the badge.
    let statusLabel: String
    let code: String?
    /// What the code means, for whoever reads the journal.
    let explanation: String?
    let message: String?
    let serverSeq: Int64?
    /// The device's clock when the change was made (RFC 3339).
    let occurredAt: String?
    /// When the server received it (RFC 3339).
    let receivedAt: String
    let decidedAt: String
    private let badge: String
    private let receivedText: String
    private let occurredText: String?

    init(_ entry: JournalEntry, timeZone: TimeZone) {
        let wording = OpWording.status(entry.status, code: entry.code)
        (deviceId, opId, clientSeq, collection, recordId) = (entry.deviceId, entry.opId, entry.clientSeq, entry.collection, entry.recordId)
        (type, fields, author, status) = (entry.type, entry.fieldNames, entry.authorName, entry.status.rawValue)
        (statusLabel, badge, code) = (wording.label, wording.key, entry.code?.rawValue)
        (explanation, message, serverSeq) = (OpWording.explanation(entry.code), entry.message, entry.serverSeq)
        (occurredAt, receivedAt, decidedAt) = (entry.occurredAt, RFC3339.string(from: entry.receivedAt), RFC3339.string(from: entry.decidedAt))
        receivedText = Formatting.dateTime(entry.receivedAt, in: timeZone)
        occurredText = entry.occurredAt.map { Formatting.dateTime(rfc3339: $0, in: timeZone) }
    }

    private enum CodingKeys: String, CodingKey {
        case deviceId, opId, clientSeq, collection, recordId, type, fields, author, status, statusLabel, code, explanation, message, serverSeq
        case occurredAt, receivedAt, decidedAt
    }

    var templateValue: TemplateValue {
        [
            "deviceId": .string(deviceId), "devicePath": .string(SyncCentrePages.devicePath(deviceId)), "opId": .string(opId),
            "clientSeq": .string(String(clientSeq)), "collection": .string(collection), "recordId": .string(recordId),
            "recordPath": .string(SyncCentrePages.recordPath(collection, recordId)), "type": type.map(TemplateValue.string) ?? .null,
            "fields": .string(fields.joined(separator: ", ")), "author": author.map(TemplateValue.string) ?? .null,
            "statusLabel": .string(statusLabel), "statusKey": .string(badge), "code": code.map(TemplateValue.string) ?? .null,
            "explanation": explanation.map(TemplateValue.string) ?? .null, "serverSeq": serverSeq.map { .string(String($0)) } ?? .null,
            "occurred": occurredText.map(TemplateValue.string) ?? .null, "received": .string(receivedText),
        ]
    }
}
