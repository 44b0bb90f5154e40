import Foundation
import SyncProtocol
import Testing

/// The journal export is streamed in batches, and the whole file still arrives.
@Suite("Journal export streaming, over HTTP")
struct WebJournalExportStreamTests {
    @Test("A 6,000-op journal (six store batches) streams as chunks and arrives whole, as CSV and as JSON")
    func largeJournalArrivesWhole() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try Paging.seedOps(server, device: "dev-huge", count: 6_000)
        let browser = try server.signedIn()

        let csv = try browser.get("/admin/sync/devices/dev-huge?format=csv")
        #expect(csv.status == 200 && csv.header("Transfer-Encoding") == "chunked")
        let lines = csv.body.components(separatedBy: "\r\n")
        #expect(lines.first?.hasPrefix("receivedAt,") == true && lines.last == "")
        let opIds = lines.dropFirst().filter { !$0.isEmpty }.map { $0.components(separatedBy: ",")[4] }
        #expect(opIds.count == 6_000 && Set(opIds).count == 6_000)

        let json = try browser.get("/admin/sync/devices/dev-huge?format=json")
        #expect(json.header("Transfer-Encoding") == "chunked" && json.body.utf8.count > 1 << 20, "larger than the stream's buffer")
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(json.body.utf8))
        guard case .array(let ops)? = document["ops"] else {
            Issue.record("no ops array")
            return
        }
        #expect(ops.count == 6_000 && Set(ops.compactMap { $0["opId"] }).count == 6_000)
    }
}
