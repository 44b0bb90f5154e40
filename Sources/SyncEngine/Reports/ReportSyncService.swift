import Cryptography
import Foundation
import SyncProtocol

/// Maps the simple report contract onto push ops on the `reports` collection.
///
/// Each report is one op in its own transaction, so a failing report never blocks the others
/// (the seed contract's BR-04). Identities are derived, never stored separately:
/// - `recordId` (the `serverId`) = `report:` + SHA-256 of (deviceId, localId), unless the
///   device names a `serverId`;
/// - `opId` = `report-op:` + SHA-256 of the device and the report as sent, so a retried
///   identical request finds its op in the op log and answers the stored result.
public struct ReportSyncService: Sendable {
    static let collection = "reports"
    let pushes: PushService

    public init(pushes: PushService) {
        self.pushes = pushes
    }

    /// Applies every report of `request` for `principal` and answers one result per report.
    /// - Throws: ``SyncError`` when a report's transaction fails: the device retries the batch
    ///   and the reports already stored answer their replayed results.
    public func sync(_ request: ReportSyncRequest, by principal: Principal) throws -> [ReportSyncResult] {
        guard request.deviceId == principal.deviceId else {
            throw SyncError.validation("deviceId", "deviceId does not match the authenticated device")
        }
        return try request.reports.map { report in
            // The ids become a record id and an op id: both follow the id rule.
            guard DeviceIdentifier.isValid(report.localId), report.serverId.map(DeviceIdentifier.isValid) ?? true else {
                return ReportSyncResult(localId: report.localId, status: .rejected, errorCode: .validationFailed)
            }
            let key = RecordKey(collection: Self.collection, recordId: report.serverId ?? Self.recordId(principal.deviceId, report.localId))
            let opId = try Self.opId(principal.deviceId, report)
            return try pushes.store.transaction { tx in
                try apply(report, key: key, opId: opId, schemaVersion: request.schemaVersion, by: principal, in: tx)
            }
        }
    }

    /// Runs one report's op inside `tx`.
    private func apply(
        _ report: ReportUpload, key: RecordKey, opId: String, schemaVersion: Int, by principal: Principal, in tx: any SyncTransaction
    ) throws -> ReportSyncResult {
        let result = try pushes.runServerNumbered(opId: opId, key: key, schemaVersion: schemaVersion, by: principal, in: tx) { current, clientSeq in
            Self.op(report, key: key, opId: opId, clientSeq: clientSeq, current: current)
        }
        return try answer(report, key: key, result: result, in: tx)
    }

    /// The push op for a report: a create for a new record, otherwise an update based on the
    /// revision the device last saw (none: 0, so every change by another device overlaps).
    static func op(_ report: ReportUpload, key: RecordKey, opId: String, clientSeq: Int64, current: StoredRecord?) -> PushOp {
        let exists = current.map { !$0.isDeleted } ?? false
        let fields = [
            "assignmentId": FieldChange(old: exists ? current?.payload["assignmentId"] : nil, new: .string(report.assignmentId)),
            "answers": FieldChange(old: exists ? current?.payload["answers"] : nil, new: .object(report.payload)),
        ]
        return PushOp(
            opId: opId, clientSeq: clientSeq, collection: key.collection, recordId: key.recordId, type: exists ? .update : .create,
            baseServerSeq: exists ? (report.baseRevision ?? 0) : nil, occurredAt: RFC3339.string(from: Date()), fields: fields)
    }

    /// The contract's answer for an op result; a conflict carries the server's current revision.
    private func answer(_ report: ReportUpload, key: RecordKey, result: OpResult, in tx: any SyncTransaction) throws -> ReportSyncResult {
        var answer = ReportSyncResult(localId: report.localId, status: .rejected, serverId: key.recordId, errorCode: result.code)
        switch result.status {
        case .applied:
            answer.status = .accepted
            answer.revision = result.serverSeq
            answer.errorCode = nil
        case .conflict:
            let current = try tx.lockRecords([key]).first
            answer.status = .conflict
            answer.revision = current?.serverSeq
            answer.serverPayload = current?.payload
        case .rejected:
            answer.serverId = nil
        case .deferred, .retry:
            throw SyncError(.temporarilyUnavailable, "report \(report.localId) could not be stored now; retry")
        }
        return answer
    }

    /// The server id of a report first sent without one.
    static func recordId(_ deviceId: String, _ localId: String) -> String {
        "report:" + SHA256.hash(Data("\(deviceId.utf8.count):\(deviceId):\(localId)".utf8)).hexString.prefix(40)
    }

    /// The op id of one report as sent: equal reports from one device share it.
    static func opId(_ deviceId: String, _ report: ReportUpload) throws -> String {
        let canonical = try JSONValue(encoding: report).canonicalData()
        return "report-op:" + SHA256.hash(Data(deviceId.utf8) + [0] + canonical).hexString
    }
}
