import SyncEngine
import SyncProtocol

extension ReportSyncResult {
    /// The result as `POST /v1/reports/sync` answers it.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["localId": .string(localId), "status": .string(status.rawValue)]
        if let serverId { members["serverId"] = .string(serverId) }
        if let revision { members["revision"] = .int(revision) }
        if let serverPayload { members["serverPayload"] = .object(serverPayload) }
        if let errorCode { members["errorCode"] = .string(errorCode.rawValue) }
        return .object(members)
    }
}
