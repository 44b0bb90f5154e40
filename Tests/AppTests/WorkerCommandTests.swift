import App
import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import Testing
import Worker

/// `fieldsync worker --once [--job NAME]`, run as a process on a test database.
@Suite("fieldsync worker --once")
struct WorkerCommandTests {
    @Test("--once --job runs that job now and records the run; other jobs do not run")
    func onceOneJob() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        try server.core.database.withConnection { try $0.executeScript(WorkerJobTests.seed) }

        let output = try await FieldSyncCLI.run(["worker", "--once", "--job", "retention"], environment: ["DATABASE_URL": server.databaseURL])

        #expect(output.status == 0, "\(output)")
        #expect(output.standardOutput.contains("retention: succeeded"), "\(output)")
        let runs = PostgresJobRunStore(database: server.core.database)
        let run = try #require(try runs.recent(job: "retention", limit: 5).first)
        #expect(run.outcome == .succeeded && run.counts["opResults"] == 1 && run.counts["deviceTokens"] == 1)
        #expect(try runs.recent(job: "live-feed-outbox", limit: 5).isEmpty)
    }

    @Test("--once without --job runs every job; an unknown job or --job without --once exits 1 naming the jobs")
    func onceAllAndErrors() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let environment = ["DATABASE_URL": server.databaseURL]

        let all = try await FieldSyncCLI.run(["worker", "--once"], environment: environment)
        #expect(all.status == 0, "\(all)")
        for job in ["retention", "sweeps", "live-feed-outbox", "record-migration"] {
            #expect(all.standardOutput.contains("\(job): succeeded"), "\(all)")
        }
        let unknown = try await FieldSyncCLI.run(["worker", "--once", "--job", "nope"], environment: environment)
        #expect(unknown.status == 1 && unknown.standardError.contains("no job named nope; jobs: "), "\(unknown)")
        let withoutOnce = try await FieldSyncCLI.run(["worker", "--job", "retention"], environment: environment)
        #expect(withoutOnce.status == 1 && withoutOnce.standardError.contains("--job needs --once"), "\(withoutOnce)")
    }

    @Test("A worker process asked to run a job another process is running skips it, exits 1, and records no run")
    func busyElsewhere() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let job = BlockingJob(name: "retention")
        defer { job.release() }
        // The job blocks its thread: a thread of its own, never one of the few the tests' tasks share.
        let running = Task { try await onDedicatedThread { try runner.run(job) } }
        #expect(try await eventually(within: .seconds(30)) { job.hasStarted ? true : nil } == true)

        let output = try await FieldSyncCLI.run(["worker", "--once", "--job", "retention"], environment: ["DATABASE_URL": server.databaseURL])

        job.release()
        #expect(output.status == 1 && output.standardOutput.contains("retention: skipped, another process is running it"), "\(output)")
        guard case .ran(let id, .succeeded) = try await running.value else {
            Issue.record("the holder's run did not succeed")
            return
        }
        #expect(try runner.runs.recent(job: "retention", limit: 5).map(\.id) == [id])
    }
}
