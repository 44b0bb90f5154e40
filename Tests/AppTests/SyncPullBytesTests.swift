import App
import AppTesting
import Foundation
import SyncAPI
import SyncProtocol
import Testing

/// Pull pages are bounded by bytes as well as by count.
@Suite("Pull page bytes")
struct SyncPullBytesTests {
    @Test("A page stops before the change that would take it past the byte cap, and a change larger than the cap comes alone")
    func pagesBoundedByBytes() async throws {
        let server = try await TestServer.start {
            $0.databasePoolSize = 2
            $0.maxPullPageBytes = 3_000
        }
        defer { server.stop() }
        let ana = try await server.device()
        let long = String(repeating: "x", count: 1_000)
        let ops = ["job-1", "job-2", "job-big", "job-3", "job-4", "job-5"].map { id in
            ana.create("jobs", id, ["title": .string(id == "job-big" ? String(repeating: "y", count: 5_000) : long)])
        }
        #expect(try await ana.push(ops).allSatisfy { $0.status == .applied })

        let run = try await ana.drain(limit: 500)
        let pages = run.pages.map { $0.changes.map(\.recordId) }
        #expect(pages.flatMap { $0 } == ["job-1", "job-2", "job-big", "job-3", "job-4", "job-5"], "every change once, in order")
        #expect(pages.allSatisfy { $0.count <= 2 }, "two 1 KB changes fit in 3 000 bytes, three do not: \(pages)")
        #expect(pages.contains(["job-big"]))
    }
}
