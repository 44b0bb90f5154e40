import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Job runs in the back-office: live progress and failures on the dashboard", .serialized)
struct WebJobRunsTests {
    /// A run of `job` that ended with `outcome`.
    static func finishedRun(_ server: WebTestServer, _ job: String, _ outcome: JobRun.Outcome) throws -> Int64 {
        let runs = PostgresJobRunStore(database: server.database)
        let id = try runs.begin(job: job, requestedBy: nil)
        try runs.finish(id, outcome: outcome, counts: ["things": 1], error: outcome == .failed ? "disk on fire" : nil)
        return id
    }

    static func acknowledgedBy(_ server: WebTestServer, _ run: Int64) throws -> String? {
        try server.database.withConnection { connection in
            try connection.query(
                "SELECT u.username FROM job_runs r LEFT JOIN users u ON u.id = r.acknowledged_by WHERE r.id = \(run)"
            )[0].decode(0, as: String?.self)
        }
    }

    @Test("A running job's progress is served as JSON to admins, and the page marks its row for the script to follow")
    func progress() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let runs = PostgresJobRunStore(database: server.database)
        let id = try runs.begin(job: "retention", requestedBy: nil)
        try runs.progress(id, done: 1_500, total: 4_000, counts: ["opResults": 1_500])
        let admin = try server.signedIn()

        let page = try admin.get("/admin/jobs").body
        #expect(page.contains(#"data-job-run="/admin/jobs/runs/\#(id)""#))
        #expect(page.contains(#"<progress value="1500" max="4000"></progress> <span data-progress-text>1,500 of 4,000</span>"#))

        let json = try admin.get("/admin/jobs/runs/\(id)")
        #expect(json.status == 200 && json.header("Content-Type")?.hasPrefix("application/json") == true)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.body.utf8)) as? [String: Any])
        #expect(body["outcome"] as? String == "running" && body["done"] as? Int == 1_500 && body["total"] as? Int == 4_000)
        #expect(body["text"] as? String == "1,500 of 4,000" && body["job"] as? String == "retention")

        try runs.progress(id, done: 4_000, total: 4_000, counts: ["opResults": 4_000])
        try runs.finish(id, outcome: .succeeded, counts: ["opResults": 4_000], error: nil)
        let ended = try admin.get("/admin/jobs/runs/\(id)").body
        #expect(ended.contains(#""outcome":"succeeded""#) && ended.contains(#""done":4000"#))

        for hostile in [
            "0", "\(id + 1)", "-1", "1.5", "0x1", "abc", "99999999999999999999", String(repeating: "9", count: 4_000), "%00", "1%2F..", "%E2%80%AE",
        ] {
            let status = try admin.get("/admin/jobs/runs/\(hostile)").status
            #expect((400..<500).contains(status), "\(hostile.prefix(20)): \(status)")
        }
        try server.createUser("disp", role: .dispatcher)
        #expect(try server.signedIn(as: "disp").get("/admin/jobs/runs/\(id)").status == 403)
        let anonymous = try Browser(port: server.app.port).get("/admin/jobs/runs/\(id)")
        #expect(anonymous.status == 303 && anonymous.location?.hasPrefix("/login") == true)
    }

    @Test("A failed run shows a banner on admins' dashboard until an admin opens the jobs page, who is recorded")
    func bannerUntilJobsPageOpened() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        try server.createUser("disp", role: .dispatcher)
        try server.createUser("boss", role: .admin)
        let succeeded = try Self.finishedRun(server, "retention", .succeeded)
        let admin = try server.signedIn()
        #expect(!(try admin.get("/admin").body.contains("job run")), "a run that succeeded raises nothing")

        let failed = try Self.finishedRun(server, "sweeps", .failed)
        let dashboard = try admin.get("/admin").body
        #expect(
            dashboard.contains("A job run failed.") && dashboard.contains("Jobs: sweeps.") && dashboard.contains(#"href="/admin/jobs">Open jobs"#))
        #expect(!(try server.signedIn(as: "disp").get("/admin").body.contains("job run")), "only admins, who may open the jobs page")

        #expect(try server.signedIn(as: "boss").get("/admin/jobs").status == 200)
        #expect(try Self.acknowledgedBy(server, failed) == "boss")
        #expect(try Self.acknowledgedBy(server, succeeded) == nil)
        #expect(!(try admin.get("/admin").body.contains("job run")))
        _ = try admin.get("/admin/jobs")
        #expect(try Self.acknowledgedBy(server, failed) == "boss", "acknowledged once, by the first admin who looked")
    }

    @Test("Mark as seen (CSRF-protected) acknowledges the runs the banner listed, not one that failed since")
    func markAsSeen() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let first = try Self.finishedRun(server, "sweeps", .failed)
        let second = try Self.finishedRun(server, "retention", .interrupted)
        let admin = try server.signedIn()
        let dashboard = try admin.get("/admin")
        #expect(dashboard.body.contains("2 job runs failed or were interrupted.") && dashboard.body.contains("Jobs: retention, sweeps."))
        #expect(dashboard.body.contains(#"name="runs" value="\#(second),\#(first)""#))
        let token = try #require(dashboard.csrfToken)
        let later = try Self.finishedRun(server, "sweeps", .failed)

        #expect(try admin.post("/admin/jobs/seen", [("runs", "\(first),\(second)")]).status == 403)
        #expect(try admin.post("/admin/jobs/seen", [("runs", "\(first),\(second)"), ("_csrf", "AAAA")]).status == 403)
        let hostile = [
            "", ",", "\(first),", "abc", "-1", "1.5", "99999999999999999999", Array(repeating: "1", count: 101).joined(separator: ","),
            String(repeating: "1", count: 5_000), "1;DROP TABLE job_runs", "\u{0}",
        ]
        for runs in hostile {
            let status = try admin.post("/admin/jobs/seen", [("runs", runs), ("_csrf", token)]).status
            #expect(status == 400, "\(runs.prefix(20)): \(status)")
        }
        #expect(try server.integer("SELECT count(*)::int FROM job_runs WHERE acknowledged_at IS NOT NULL") == 0)
        try server.createUser("disp", role: .dispatcher)
        let dispatcher = try server.signedIn(as: "disp")
        let dispatcherToken = try #require(try dispatcher.get("/admin").csrfToken)
        #expect(try dispatcher.post("/admin/jobs/seen", [("runs", "\(first)"), ("_csrf", dispatcherToken)]).status == 403)

        let seen = try admin.post("/admin/jobs/seen", [("runs", "\(second),\(first)"), ("_csrf", token)])
        #expect(seen.status == 303 && seen.location == "/admin")
        #expect(try Self.acknowledgedBy(server, first) == "admin" && Self.acknowledgedBy(server, second) == "admin")
        #expect(try Self.acknowledgedBy(server, later) == nil)
        let after = try admin.get("/admin").body
        #expect(after.contains("A job run failed.") && after.contains(#"name="runs" value="\#(later)""#))
    }
}
