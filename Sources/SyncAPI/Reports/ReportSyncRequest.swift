import Foundation
import SyncProtocol

/// The body of `POST /v1/reports/sync` (PROTOCOL.md "Inspection reports").
public struct ReportSyncRequest: Codable, Sendable {
    public var deviceId: String
    public var appVersion: String?
    public var schemaVersion: Int
    public var reports: [ReportUpload]
}

extension ReportSyncRequest {
    /// Where the first text the server cannot store (U+0000) sits, as `reports[2].assignmentId`
    /// (`payload` for anything inside a payload); nil when there is none.
    func firstUnstorableMember() -> String? {
        for (index, report) in reports.enumerated() {
            if !StorableText.isStorable(report.assignmentId) { return "reports[\(index)].assignmentId" }
            if let serverId = report.serverId, !StorableText.isStorable(serverId) { return "reports[\(index)].serverId" }
            if !StorableText.isStorable(.object(report.payload)) { return "reports[\(index)].payload" }
        }
        return nil
    }
}

/// One report as a report app sends it.
///
/// `payload` becomes the record's `answers`; `assignmentId` its `assignmentId`.
public struct ReportUpload: Codable, Sendable, Hashable {
    public var localId: String
    public var serverId: String?
    public var assignmentId: String
    public var payload: [String: JSONValue]
    public var baseRevision: Int64?
}

/// The per-report answer of `POST /v1/reports/sync`.
public struct ReportSyncResult: Sendable, Hashable {
    public enum Status: String, Sendable {
        case accepted = "ACCEPTED", conflict = "CONFLICT", rejected = "REJECTED"
    }

    public var localId: String
    public var status: Status
    public var serverId: String?
    public var revision: Int64?
    public var serverPayload: [String: JSONValue]?
    public var errorCode: String?

    var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["localId": .string(localId), "status": .string(status.rawValue)]
        if let serverId { members["serverId"] = .string(serverId) }
        if let revision { members["revision"] = .int(revision) }
        if let serverPayload { members["serverPayload"] = .object(serverPayload) }
        if let errorCode { members["errorCode"] = .string(errorCode) }
        return .object(members)
    }
}
