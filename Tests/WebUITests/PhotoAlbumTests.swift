import Foundation
import SyncEngine
import SyncProtocol
import Templating
import Testing

@testable import WebUI

@Suite("Photos beside record values")
struct PhotoAlbumTests {
    static let record = RecordKey(collection: "reports", recordId: "rep-1")

    static func photo(_ attId: String, _ state: StoredPhoto.State, type: String = "image/jpeg") -> StoredPhoto {
        StoredPhoto(id: UUID(), attId: attId, record: record, contentType: type, size: 10, state: state)
    }

    @Test("A finished image links its thumbnail to the photo; an open upload and an unknown id say so in words; a file is a download")
    func gallery() throws {
        let ready = Self.photo("att-1", .ready(sha256: String(repeating: "a", count: 64)))
        let file = Self.photo("att-4", .ready(sha256: String(repeating: "b", count: 64)), type: "application/pdf")
        let album = PhotoAlbum(
            record: Self.record, fields: ["photos": try #require(Schema.builtIn().collections["reports"]?.fields["photos"])],
            photos: ["att-1": ready, "att-2": Self.photo("att-2", .uploading), "att-3": Self.photo("att-3", .abandoned), "att-4": file])
        let items = try #require(album.gallery(field: "photos", value: ["att-1", "att-2", "att-3", "att-4", "att-5"])["items"])
        guard case .array(let list) = items else { throw PhotoTestFailure() }
        #expect(list.map { $0["state"]?.interpolatedText ?? "" } == ["", "Photo still uploading", "Photo missing", "", "Photo missing"])
        #expect(list[0]["path"]?.interpolatedText == PhotoPages.path(of: ready.id) && list[0]["image"]?.isTruthy == true)
        #expect(list[0]["alt"]?.interpolatedText == "Photo att-1 in photos of reports rep-1")
        #expect(list[3]["download"]?.isTruthy == true && list[3]["image"]?.isTruthy == false)
        #expect(list[1]["path"] == .null && list[4]["path"] == .null)
        #expect(album.gallery(field: "answers", value: ["q1": "att-1"]) == .null)
        #expect(album.gallery(field: "photos", value: []) == .null)
    }

    @Test("Only the lowercase UUID spelling is a photo address")
    func ids() {
        let id = UUID()
        #expect(PhotoPages.id(id.uuidString.lowercased()) == id)
        for text in [id.uuidString, "../../etc/passwd", "", String(repeating: "a", count: 5_000), id.uuidString.lowercased() + " ", "att-1"] {
            #expect(PhotoPages.id(text) == nil)
        }
    }

    @Test("Images show inline; other declared types are offered as downloads")
    func imageTypes() {
        #expect(PhotoResponse.isImage("image/png") && PhotoResponse.isImage("Image/JPEG; q=1"))
        #expect(!PhotoResponse.isImage("image/svg+xml") && !PhotoResponse.isImage("text/html"))
    }
}

private struct PhotoTestFailure: Error {}
