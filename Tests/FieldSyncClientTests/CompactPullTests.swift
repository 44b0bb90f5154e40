import FieldSyncClient
import Foundation
import SyncProtocol
import Synchronization
import Testing

/// A device pulling the compact field metadata ends with the local state of one pulling the full form.
@Suite("Compact pulls")
struct CompactPullTests {
    @Test("Devices pulling the compact and the full field metadata reach the same local state")
    func sameLocalState() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device(team: "north")
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler", "status": "in_progress"])
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump", "labor_minutes": 30])
        try await ana.client.create("jobs", id: "job-3", ["title": "Valve"])
        _ = try await ana.client.sync()
        try await ana.client.update("jobs", id: "job-1", ["status": "complete"])
        try await ana.client.delete("jobs", id: "job-3")
        #expect(try await ana.client.sync().isSynced)

        let compactLog = PullLog()
        let fullLog = PullLog()
        let compact = try await bed.device(team: "north", transport: compactLog)
        let full = try await bed.device(team: "north", transport: fullLog) { $0.compactFieldMeta = false }
        #expect(try await compact.client.sync().isSynced)
        #expect(try await full.client.sync().isSynced)

        let records = try await full.client.records("jobs")
        #expect(records.map(\.id).sorted() == ["job-1", "job-2"])
        #expect(records.first { $0.id == "job-1" }?.fields["status"] == "complete")
        #expect(try await compact.client.records("jobs") == records)
        #expect(!compactLog.pulls.isEmpty && compactLog.pulls.allSatisfy { $0.contains("fieldMeta=compact") })
        #expect(!fullLog.pulls.isEmpty && fullLog.pulls.allSatisfy { !$0.contains("fieldMeta") })
    }
}

/// URLSession, remembering the query of every pull.
private final class PullLog: HTTPTransport {
    private let base = URLSessionTransport(timeout: 30)
    private let queries = Mutex<[String]>([])

    var pulls: [String] { queries.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.path.hasSuffix("/sync/pull") { queries.withLock { $0.append(request.url.query ?? "") } }
        return try await base.send(request)
    }
}
