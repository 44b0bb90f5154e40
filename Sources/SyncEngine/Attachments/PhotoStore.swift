public import Foundation

/// The attachment rows the back-office shows as photos: the attachments registered for a
/// record, and one attachment by its server id.
///
/// Storage implements it on PostgreSQL (`PostgresPhotoStore`).
///
/// ```swift
/// let photos = try store.photos(of: RecordKey(collection: "reports", recordId: "rep-1"))
/// if let found = try store.photo(id: id, teamId: "north"), found.visible, case .ready(let sha256) = found.photo.state { … }
/// ```
public protocol PhotoStore: Sendable {
    /// The attachments registered for `record`, one per attId: a finished one before an
    /// open one, then the oldest (two devices may choose the same attId).
    func photos(of record: RecordKey) throws -> [StoredPhoto]

    /// The attachment whose server id is `id`, with whether a supervisor of `teamId` may see
    /// it: its record is in the team's scope (the sync centre's rule for a record page), or a
    /// member uploaded it; always visible when `teamId` is nil. Nil when there is none.
    func photo(id: UUID, teamId: String?) throws -> (photo: StoredPhoto, visible: Bool)?
}

/// One attachment as the back-office shows it.
public struct StoredPhoto: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// Finished: its bytes are the blob `sha256`.
        case ready(sha256: String)
        /// An upload session still open: the device has not sent every chunk yet.
        case uploading
        /// An upload session that lapsed before it finished; the sweep removes it.
        case abandoned
    }

    /// Server-generated: the attachment's address in the back-office.
    public let id: UUID
    /// The id the device chose and records hold.
    public let attId: String
    public let record: RecordKey
    /// The type the device declared at registration.
    public let contentType: String
    public let size: Int64
    public let state: State

    public init(id: UUID, attId: String, record: RecordKey, contentType: String, size: Int64, state: State) {
        (self.id, self.attId, self.record) = (id, attId, record)
        (self.contentType, self.size, self.state) = (contentType, size, state)
    }
}
