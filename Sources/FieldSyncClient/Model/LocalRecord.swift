public import SyncProtocol

/// A record as the device shows it: the last state pulled from the server with the
/// device's own unsynced edits on top.
///
/// ```swift
/// if let job = try await client.record("jobs", id: "job-4471") {
///     print(job.fields["status"] ?? nil, job.isSynced ? "synced" : "\(job.pendingChanges) pending")
/// }
/// ```
public struct LocalRecord: Sendable, Hashable {
    public let collection: String
    public let id: String
    /// The fields to display.
    public let fields: [String: JSONValue]
    /// The record's `serverSeq` the device last saw; nil while it exists only on the device.
    public let serverSeq: Int64?
    /// Edits of this record waiting to reach the server.
    public let pendingChanges: Int
    /// The open review-queue entry the server reported on this record, if any.
    public let openConflictId: String?

    /// Whether every edit of this record has reached the server.
    public var isSynced: Bool { pendingChanges == 0 }
}
