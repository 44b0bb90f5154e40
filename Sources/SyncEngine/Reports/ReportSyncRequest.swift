import Foundation
public import SyncProtocol

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
    public func firstUnstorableMember() -> String? {
        if let appVersion, !StorableText.isStorable(appVersion) { return "appVersion" }
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
        case accepted = "ACCEPTED"
        case conflict = "CONFLICT"
        case rejected = "REJECTED"
    }

    public var localId: String
    public var status: Status
    public var serverId: String?
    public var revision: Int64?
    public var serverPayload: [String: JSONValue]?
    public var errorCode: ErrorCode?

    public init(
        localId: String, status: Status, serverId: String? = nil, revision: Int64? = nil, serverPayload: [String: JSONValue]? = nil,
        errorCode: ErrorCode? = nil
    ) {
        self.localId = localId
        self.status = status
        self.serverId = serverId
        self.revision = revision
        self.serverPayload = serverPayload
        self.errorCode = errorCode
    }
}
