import Foundation
public import SyncEngine
import SyncProtocol
import Templating

/// The photos records name in their attachment fields (per the schema), as pages show them:
/// a thumbnail opening the full-size photo, a download for other files, or words for a photo
/// still uploading or missing.
///
/// ```swift
/// let album = try photos.album(for: RecordKey(collection: "reports", recordId: "rep-1"))
/// content["photos"] = album.gallery(field: "photos", value: payload["photos"])
/// ```
public struct RecordPhotos: Sendable {
    let store: any PhotoStore
    let schema: Schema

    public init(store: any PhotoStore, schema: Schema) {
        self.store = store
        self.schema = schema
    }

    /// The record's attachments, read once for a page (not at all for a collection without
    /// attachment fields).
    func album(for record: RecordKey) throws -> PhotoAlbum {
        let fields = (schema.collections[record.collection]?.fields ?? [:]).filter { $0.value.holdsAttachments }
        let photos = fields.isEmpty ? [] : try store.photos(of: record)
        return PhotoAlbum(record: record, fields: fields, photos: Dictionary(photos.map { ($0.attId, $0) }) { first, _ in first })
    }
}

/// One record's attachments, ready to place beside its field values.
struct PhotoAlbum {
    static let uploading = "Photo still uploading"
    static let missing = "Photo missing"

    let record: RecordKey
    let fields: [String: FieldSpec]
    let photos: [String: StoredPhoto]

    /// `{"items": […]}` for the attachments `value` names when `field` is an attachment
    /// field; null when it names none.
    func gallery(field: String, value: JSONValue?) -> TemplateValue {
        let ids = fields[field]?.attachmentIds(in: value) ?? []
        guard !ids.isEmpty else { return .null }
        return ["items": .array(ids.map { item($0, field: field) })]
    }

    /// Every key is always set, so a missing one never resolves from the page around it.
    private func item(_ attId: String, field: String) -> TemplateValue {
        let photo = photos[attId]
        var path: String?
        var image = false
        var state: String? = Self.missing
        switch photo?.state {
        case .ready?:
            path = photo.map { PhotoPages.path(of: $0.id) }
            image = photo.map { PhotoResponse.isImage($0.contentType) } ?? false
            state = nil
        case .uploading?: state = Self.uploading
        case .abandoned?, nil: break
        }
        return [
            "attId": .string(attId), "path": path.map(TemplateValue.string) ?? .null, "image": .bool(image),
            "download": .bool(path != nil && !image), "state": state.map(TemplateValue.string) ?? .null,
            "contentType": .string(photo?.contentType ?? ""),
            "alt": .string("Photo \(attId) in \(field) of \(record.collection) \(record.recordId)"),
        ]
    }
}
