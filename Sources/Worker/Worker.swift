import Foundation
import Postgres
import Support
import Synchronization

/// Runs jobs on a fixed interval on a thread of its own, each under a PostgreSQL advisory
/// lock so that of several FieldSync instances on one database only one runs a job at a time.
///
/// ```swift
/// let worker = Worker(jobs: [RetentionJob(...)], database: client, interval: .seconds(600), logger: logger)
/// worker.start()
/// …
/// worker.stop()
/// ```
public final class Worker: Sendable {
    private let jobs: [any Job]
    private let database: PostgresClient
    private let interval: Duration
    private let logger: Logger
    /// Signalled by `stop()` to end the wait between passes early.
    private let wakeUp = NSCondition()
    private let running = Mutex(false)

    public init(jobs: [any Job], database: PostgresClient, interval: Duration, logger: Logger) {
        self.jobs = jobs
        self.database = database
        self.interval = interval
        self.logger = logger
    }

    /// Starts the loop: a pass at once, then one every `interval`.
    public func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "fieldsync-worker"
        running.withLock { $0 = true }
        thread.start()
    }

    /// Ends the loop after the current pass; returns at once.
    public func stop() {
        running.withLock { $0 = false }
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    private var isRunning: Bool { running.withLock { $0 } }

    private func loop() {
        while isRunning {
            runOnce()
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            wakeUp.lock()
            if isRunning { _ = wakeUp.wait(until: Date(timeIntervalSinceNow: seconds)) }
            wakeUp.unlock()
        }
    }

    /// Runs every job once (skipping those another instance is running now); also usable without `start()`.
    public func runOnce() {
        for job in jobs {
            do {
                try database.withConnection { connection in
                    let key = "fieldsync.job.\(job.name)"
                    guard try connection.query("SELECT pg_try_advisory_lock(hashtext(\(key)))")[0].decode(0, as: Bool.self) else {
                        logger.debug("job skipped: running elsewhere", metadata: ["job.name": job.name])
                        return
                    }
                    defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtext(\(key)))") }
                    let summary = try job.run()
                    logger.info("job finished: \(summary)", metadata: ["job.name": job.name])
                }
            } catch {
                logger.error("job failed: \(error)", metadata: ["job.name": job.name])
            }
        }
    }
}
