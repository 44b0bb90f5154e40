import Foundation
import HTTP
import Support
public import SyncEngine
import SyncProtocol

/// `GET /admin/photos/{id}`: an attachment's bytes for the back-office, the full-size view
/// and the source of every thumbnail.
///
/// The id is the server-generated UUID of the attachment row, never a file name: the bytes
/// come from the blob store under the digest that row names. A supervisor gets only their
/// team's photos (the sync centre's rule for a record); another team's answers 403, as the
/// record page does. An id that is not a lowercase UUID or names no attachment answers the
/// 404 page; a photo not uploaded yet, or whose file is gone, answers 404 saying so.
struct PhotoPages {
    let store: any PhotoStore
    let blobs: any BlobStore
    let renderer: PageRenderer
    let logger: Logger

    static let path = Area.photos.path

    static func path(of id: UUID) -> String {
        "\(path)/\(id.uuidString.lowercased())"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, "\(Self.path)/{id}", area: .photos, handler: photo)
    }

    static let uploadingMessage = "Photo still uploading: the device has not sent all of it yet. It appears here once the upload finishes."
    static let missingMessage = "Photo missing: the server does not hold this photo's file."

    @Sendable func photo(_ context: WebContext) throws -> Response {
        let scope = TeamScope(context.session)
        guard let id = Self.id(try context.request.parameter("id")), let found = try store.photo(id: id, teamId: scope.teamId) else {
            throw PageError.notFound
        }
        if scope.blocked || !found.visible { throw PageError.forbidden }
        let photo = found.photo
        switch photo.state {
        case .uploading: return try renderer.error(404, session: context.session, message: Self.uploadingMessage)
        case .abandoned: return try renderer.error(404, session: context.session, message: Self.missingMessage)
        case .ready(let sha256):
            guard let file = try blobs.open(sha256) else {
                logger.error("blob missing from the blob store", metadata: ["attachment.sha256": sha256])
                return try renderer.error(404, session: context.session, message: Self.missingMessage)
            }
            return PhotoResponse.make(photo, sha256: sha256, file: file, request: context.request)
        }
    }

    /// The UUID `text` spells in the lowercase form links use; nil for anything else, so no
    /// other spelling (or a path) ever reaches the database.
    static func id(_ text: String) -> UUID? {
        guard text.utf8.count == 36, let id = UUID(uuidString: text), id.uuidString.lowercased() == text else { return nil }
        return id
    }
}

extension Area {
    /// `/admin/photos/…`: attachment photos, for everyone who may open a record's history.
    public static let photos = Area(
        path: "/admin/photos", title: "Photos", access: [.admin: .view, .dispatcher: .view, .supervisor: .view], inNavigation: false)
}

extension BackOfficePages {
    /// Adds `GET /admin/photos/{id}`: attachment bytes from `blobs`, scope-checked with `store`.
    public func addPhotoPages(store: any PhotoStore, blobs: any BlobStore) {
        PhotoPages(store: store, blobs: blobs, renderer: renderer, logger: logger).register(on: self)
    }
}
