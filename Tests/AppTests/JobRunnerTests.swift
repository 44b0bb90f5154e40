import App
import AppTesting
import Foundation
import Postgres
import PostgresTesting
import Storage
import Support
import SyncEngine
import Synchronization
import Testing
import Worker

/// The job runner on a real database: one runner per job across instances, and schedules.
@Suite("Job runner across instances")
struct JobRunnerTests {
    /// A runner of its own pool, as another FieldSync process on the same database has.
    static func runner(on database: PostgresConfiguration) -> (JobRunner, PostgresClient) {
        let client = PostgresClient(configuration: database, options: PostgresClient.Options(), logger: Logger(label: "test", level: .warning))
        let runner = JobRunner(
            locks: PostgresJobLocks(database: client), runs: PostgresJobRunStore(database: client),
            settings: PostgresSettingsStore(database: client), logger: Logger(label: "test", level: .warning))
        return (runner, client)
    }

    @Test("Two runners on separate connections never run the same job at once; the second is told it is busy")
    func oneAtATime() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let (first, firstPool) = Self.runner(on: server.database)
        let (second, secondPool) = Self.runner(on: server.database)
        defer {
            firstPool.shutdown()
            secondPool.shutdown()
        }
        let job = BlockingJob()
        defer { job.release() }
        // The job blocks its thread: a thread of its own, never one of the few the tests' tasks share.
        let running = Task { try await onDedicatedThread { try first.run(job) } }
        #expect(try await eventually(within: .seconds(30)) { job.hasStarted ? true : nil } == true)
        #expect(try second.run(job) == .busy)
        #expect(try second.run(job, dueAt: Date()) == .busy)
        job.release()
        guard case .ran(let id, .succeeded) = try await running.value else {
            Issue.record("first run did not succeed")
            return
        }
        let runs = try second.runs.recent(job: job.name, limit: 5)
        #expect(runs.map(\.id) == [id] && runs.first?.outcome == .succeeded, "the busy runner recorded nothing")
        #expect(job.runs == 1)
        // Scheduled: it ran moments ago on the other instance, so it is not due here.
        #expect(try second.run(job, dueAt: Date()) == .notDue)
        #expect(job.runs == 1)
    }

    @Test("A scheduled run is due once its interval has passed since the latest run on any instance")
    func schedule() async throws {
        let server = try await TestServer.start { $0.runsWorker = false }
        defer { server.stop() }
        let runner = Application.jobRunner(server.core)
        let job = FailingJob()
        guard case .ran = try runner.run(job, dueAt: Date()) else {
            Issue.record("a job that never ran is due")
            return
        }
        #expect(try runner.run(job, dueAt: Date().addingTimeInterval(59 * 60)) == .notDue)
        guard case .ran = try runner.run(job, dueAt: Date().addingTimeInterval(61 * 60)) else {
            Issue.record("not due after an hour")
            return
        }
    }
}

/// A job that waits, once started, until the test releases it.
final class BlockingJob: Job, Sendable {
    let name: String
    let summary = "Waits to be released."
    private let state = Mutex((started: false, released: false, runs: 0))
    private let gate = DispatchSemaphore(value: 0)

    init(name: String = "test-blocking") {
        self.name = name
    }

    var hasStarted: Bool { state.withLock { $0.started } }
    var runs: Int { state.withLock { $0.runs } }

    func schedule(in settings: ServerSettings) -> JobSchedule { JobSchedule(minutes: 60) }

    func run(_ progress: JobProgress) throws {
        state.withLock {
            $0.started = true
            $0.runs += 1
        }
        // No timeout: under load a timed release could let a second runner in and prove nothing.
        gate.wait()
        try progress.report(done: 1, total: 1, counts: ["waited": 1])
    }

    /// Lets the run finish (also when called again, or before the run started).
    func release() {
        let first = state.withLock { state in
            defer { state.released = true }
            return !state.released
        }
        if first { gate.signal() }
    }
}
