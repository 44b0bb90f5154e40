import Foundation
public import Support
public import SyncEngine
import Synchronization

/// Runs each job when its schedule (in the settings) says it is due, on a thread of its own,
/// through a `JobRunner`: of several FieldSync processes on one database only one runs a job
/// at a time, and every run is recorded. Runs an admin asks for (`requestRun`) start at once.
///
/// ```swift
/// let worker = Worker(jobs: [uploads, retention], runner: runner, tick: .seconds(60), logger: logger)
/// try worker.start()
/// …
/// worker.stop()
/// ```
public final class Worker: Service, JobControl {
    public let name = "worker"
    public let jobs: [any Job]
    private let runner: JobRunner
    /// How often the loop looks for due jobs.
    private let tick: Duration
    private let logger: Logger
    /// Signalled by `stop()` to end the wait between passes early.
    private let wakeUp = NSCondition()
    private let running = Mutex(false)
    /// Runs asked for and not started yet: the job's name and who asked.
    private let requests = Mutex<[(job: String, userId: String)]>([])
    /// Signalled by the loop's thread when it has finished.
    private let finished = DispatchSemaphore(value: 0)

    public init(jobs: [any Job], runner: JobRunner, tick: Duration, logger: Logger) {
        self.jobs = jobs
        self.runner = runner
        self.tick = tick
        self.logger = logger
    }

    /// Starts the loop: a look for due jobs at once, then one every `tick`.
    public func start() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "fieldsync-worker"
        running.withLock { $0 = true }
        thread.start()
    }

    /// Ends the loop and waits for the pass under way, if any, to finish.
    public func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
        finished.wait()
    }

    private var isRunning: Bool { running.withLock { $0 } }

    private func loop() {
        while isRunning {
            runRequested()
            runDue()
            let seconds = Double(tick.components.seconds) + Double(tick.components.attoseconds) / 1e18
            wakeUp.lock()
            // A request queued while the jobs ran is seen here, under the lock its signal takes.
            if isRunning, requests.withLock({ $0.isEmpty }) { _ = wakeUp.wait(until: Date(timeIntervalSinceNow: seconds)) }
            wakeUp.unlock()
        }
    }

    // MARK: - Runs on request

    public func jobs(in settings: ServerSettings) -> [JobDescription] {
        jobs.map { JobDescription(name: $0.name, summary: $0.summary, schedule: $0.schedule(in: settings)) }
    }

    public func requestRun(of name: String, by userId: String) -> JobRequest {
        guard job(named: name) != nil else { return .unknownJob }
        guard isRunning else { return .noWorker }
        // A job already waiting to start is not queued again: repeated clicks start one run.
        requests.withLock { queue in
            if !queue.contains(where: { $0.job == name }) { queue.append((name, userId)) }
        }
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
        return .queued
    }

    private func runRequested() {
        while isRunning, let request = requests.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            if let job = job(named: request.job) { run(job, requestedBy: request.userId, dueAt: nil) }
        }
    }

    /// Runs the jobs whose schedule says they are due (and no other process is running).
    public func runDue() {
        for job in jobs { run(job, dueAt: Date()) }
    }

    /// Runs every job, or only `jobs`, now, whatever their schedule (`fieldsync worker --once`).
    /// - Returns: what each run led to, in order.
    @discardableResult
    public func runNow(_ selected: [any Job]? = nil) -> [(job: String, result: JobRunner.Result?)] {
        (selected ?? jobs).map { ($0.name, run($0, dueAt: nil)) }
    }

    /// The job named `name`, if the worker has one.
    public func job(named name: String) -> (any Job)? {
        jobs.first { $0.name == name }
    }

    /// Runs one job; nil when the run history or the lock could not be reached.
    @discardableResult
    private func run(_ job: any Job, requestedBy: String? = nil, dueAt: Date?) -> JobRunner.Result? {
        do {
            let result = try runner.run(job, requestedBy: requestedBy, dueAt: dueAt)
            if result == .busy { logger.debug("job skipped: running elsewhere", metadata: ["job.name": job.name]) }
            return result
        } catch {
            logger.error("job not run: \(error)", metadata: ["job.name": job.name])
            return nil
        }
    }
}
