import App
import Foundation
import SyncProtocol
import Testing

/// A report by ana (team north) naming three photos: one uploaded, one still uploading and one
/// the server never received; supervisors of north and south, and a dispatcher.
struct PhotoScenario {
    let server: WebTestServer
    let ready: String
    let pending: String

    static let recordPath = "/admin/sync/records/reports/rep-7"

    static func open() throws -> PhotoScenario {
        let server = try WebTestServer()
        try server.createUser("ana", role: .field, team: "north")
        try server.createUser("nora", role: .supervisor, team: "north")
        try server.createUser("sam", role: .supervisor, team: "south")
        let ana = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        let created = try ana.push(
            .create, "reports", "rep-7", ["assignmentId": "as-7", "answers": ["q1": "yes"], "photos": ["att-ready", "att-pending", "att-gone"]])
        try #require(created.serverSeq != nil, "create: \(created)")
        try ana.upload("att-ready", testPhotoPNG, collection: "reports", recordId: "rep-7")
        // Other bytes: a registration of bytes the server already holds finishes at once.
        try ana.upload("att-pending", Data("half a photo".utf8), collection: "reports", recordId: "rep-7", finish: false)
        return PhotoScenario(server: server, ready: try server.photoPath("att-ready"), pending: try server.photoPath("att-pending"))
    }
}

@Suite("Photos in the back-office, over HTTP")
struct WebPhotoTests {
    @Test("The record history shows a lazy thumbnail opening the full photo, and says which photos are uploading or missing")
    func recordHistory() throws {
        let scenario = try PhotoScenario.open()
        defer { scenario.server.stop() }
        let page = try scenario.server.signedIn(as: "nora").get(PhotoScenario.recordPath)
        #expect(page.status == 200)
        #expect(page.body.contains(#"<a class="photo-link" href="\#(scenario.ready)""#))
        #expect(page.body.contains(#"src="\#(scenario.ready)" alt="Photo att-ready in photos of reports rep-7" loading="lazy""#))
        #expect(page.body.contains("Photo still uploading") && page.body.contains("Photo missing"))
        #expect(!page.body.contains(scenario.pending), "no link to a photo that cannot be shown")
    }

    @Test("The photo answers with its declared type, a strong ETag of its SHA-256 and private, revalidated caching; If-None-Match gives 304")
    func photoResponse() throws {
        let scenario = try PhotoScenario.open()
        defer { scenario.server.stop() }
        let browser = try scenario.server.signedIn(as: "nora")
        let photo = try browser.get(scenario.ready)
        #expect(photo.status == 200)
        #expect(photo.data == testPhotoPNG)
        #expect(photo.header("Content-Type") == "image/png")
        #expect(photo.header("ETag") == "\"\(digest(testPhotoPNG))\"")
        #expect(photo.header("Cache-Control") == "private, max-age=0, must-revalidate" && photo.header("Vary") == "Cookie")
        #expect(photo.header("X-Content-Type-Options") == "nosniff")
        browser.extraHeaders = [("If-None-Match", "\"other\", \"\(digest(testPhotoPNG))\"")]
        let unchanged = try browser.get(scenario.ready)
        #expect(unchanged.status == 304 && unchanged.data.isEmpty)
        #expect(unchanged.header("ETag") == photo.header("ETag"))
        browser.extraHeaders = [("If-None-Match", "\"other\"")]
        #expect(try browser.get(scenario.ready).status == 200)
    }

    @Test("Another team's supervisor is refused the photo, as the record; a dispatcher and the admin see it")
    func teamScope() throws {
        let scenario = try PhotoScenario.open()
        defer { scenario.server.stop() }
        let south = try scenario.server.signedIn(as: "sam")
        let refused = try south.get(scenario.ready)
        #expect(refused.status == 403 && refused.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(!refused.data.starts(with: testPhotoPNG.prefix(8)))
        #expect(try south.get(PhotoScenario.recordPath).status == 403)
        try scenario.server.createUser("dora", role: .dispatcher)
        #expect(try scenario.server.signedIn(as: "dora").get(scenario.ready).status == 200)
        #expect(try scenario.server.signedIn().get(scenario.ready).status == 200)
        let anonymous = try Browser(port: scenario.server.app.port).get(scenario.ready)
        #expect(anonymous.status == 303 && anonymous.location?.hasPrefix("/login") == true)
    }

    @Test("Hostile, unknown or differently spelled ids answer the 404 page and never reach a file")
    func hostileIds() throws {
        let scenario = try PhotoScenario.open()
        defer { scenario.server.stop() }
        let browser = try scenario.server.signedIn()
        let targets = [
            "/admin/photos/..%2F..%2F..%2Fetc%2Fpasswd", "/admin/photos/../../etc/passwd", "/admin/photos/%2e%2e",
            "/admin/photos/" + String(repeating: "a", count: 4_000), "/admin/photos/00000000-0000-4000-8000-000000000000",
            "/admin/photos/00000000-0000-4000-8000-00000000000G", "/admin/photos/not-a-uuid%00.png", "/admin/photos/att-ready",
            "/admin/photos/" + scenario.ready.dropFirst("/admin/photos/".count).uppercased(), scenario.ready + "%20",
        ]
        for target in targets {
            let answer = try browser.get(target)
            #expect(answer.status == 404, "\(target.prefix(60)) answered \(answer.status)")
            #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true, "\(target.prefix(60))")
            #expect(!answer.body.contains("root:"))
        }
    }

    @Test("A photo still uploading answers 404 saying so in words")
    func stillUploading() throws {
        let scenario = try PhotoScenario.open()
        defer { scenario.server.stop() }
        let answer = try scenario.server.signedIn(as: "nora").get(scenario.pending)
        #expect(answer.status == 404 && answer.body.contains("Photo still uploading"))
    }

    @Test("The conflict page shows each side's photos, and says when the device's is missing")
    func conflictPage() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let scenario = try ReviewScenario.open(server)
        let page = try server.signedIn().get("/admin/conflicts/\(scenario.conflictId)")
        #expect(page.status == 200)
        let row = try #require(page.body.components(separatedBy: "<tr").first { $0.contains(">photos<") })
        #expect(row.contains("Photo missing") && row.contains("att-9"))
    }
}
