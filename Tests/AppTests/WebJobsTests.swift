import App
import AppTesting
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing
import WebUI

@Suite("Jobs page, over HTTP", .serialized)
struct WebJobsTests {
    /// Runs of `job` recorded as asked for by the admin.
    static func adminRuns(_ server: WebTestServer, _ job: String) throws -> Int {
        try server.integer(
            """
            SELECT count(*)::int FROM job_runs r JOIN users u ON u.id = r.requested_by
            WHERE u.username = 'admin' AND r.job = \(job) AND r.outcome = 'succeeded'
            """)
    }

    @Test("Admins see every job with its schedule and runs; Run now (CSRF-protected) runs it as asked for by them")
    func runNow() async throws {
        // Real time for sessions too: retention, which this test runs, ends sessions idle by the database's clock.
        let server = try WebTestServer {
            $0.runsWorker = true
            $0.web.now = { Date() }
        }
        defer { server.stop() }
        // The worker runs every job at once on start: none ran before.
        let startRuns = try await eventually(within: .seconds(60)) { () -> Bool? in
            try server.integer("SELECT count(*)::int FROM job_runs WHERE outcome = 'succeeded'") == 4 ? true : nil
        }
        #expect(startRuns == true)
        let admin = try server.signedIn()
        let page = try admin.get("/admin/jobs")
        #expect(page.status == 200)
        for text in [
            "retention", "sweeps", "live-feed-outbox", "record-migration", "Every 60 minutes", "Every 10 minutes", "Schedule", "Succeeded",
            "Run now",
            #"action="/admin/jobs/retention/run""#,
        ] {
            #expect(page.body.contains(text), "\(text)")
        }

        #expect(try admin.post("/admin/jobs/retention/run", []).status == 403)
        #expect(try admin.post("/admin/jobs/retention/run", [("_csrf", "AAAA")]).status == 403)
        #expect(try Self.adminRuns(server, "retention") == 0)

        let asked = try admin.submit("/admin/jobs/retention/run", from: "/admin/jobs")
        #expect(asked.status == 303 && asked.location == "/admin/jobs?notice=queued&job=retention")
        let ran = try await eventually(within: .seconds(60)) { try Self.adminRuns(server, "retention") == 1 ? true : nil }
        #expect(ran == true)
        let after = try admin.get("/admin/jobs?notice=queued&job=retention").body
        #expect(after.contains("retention starts now.") && after.contains("<td>admin</td>"))
        // Refused (404 for a name no job has; the router's own answer for a segment it cannot decode), nothing runs.
        for hostile in ["nope", String(repeating: "x", count: 4_000), "%00", "retention%2F..%2Fx", "%E2%80%AE"] {
            let status = try admin.submit("/admin/jobs/\(hostile)/run", from: "/admin/jobs").status
            #expect((400..<500).contains(status), "\(hostile.prefix(20)): \(status)")
        }
        #expect(try Self.adminRuns(server, "retention") == 1)
    }

    @Test("Only admins open the jobs page or ask for a run")
    func adminsOnly() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("disp", role: .dispatcher)
        let dispatcher = try server.signedIn(as: "disp")
        #expect(try dispatcher.get("/admin/jobs").status == 403)
        let token = try #require(try dispatcher.get("/admin").csrfToken ?? dispatcher.get("/admin/orders").csrfToken)
        #expect(try dispatcher.post("/admin/jobs/retention/run", [("_csrf", token)]).status == 403)
        #expect(try server.integer("SELECT count(*)::int FROM job_runs") == 0)
    }

    @Test("Without a worker in this process, Run now says how to run the job instead, and nothing runs")
    func noWorker() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let admin = try server.signedIn()
        let asked = try admin.submit("/admin/jobs/retention/run", from: "/admin/jobs")
        #expect(asked.location == "/admin/jobs?notice=no-worker&job=retention")
        let page = try admin.get(try #require(asked.location)).body
        #expect(page.contains("fieldsync worker --once --job retention"))
        #expect(page.contains("Not run yet."))
        #expect(try server.integer("SELECT count(*)::int FROM job_runs") == 0)
    }
}
