import Foundation
public import Support
public import SyncEngine
import Synchronization

/// Runs jobs on a fixed interval on a thread of its own, each under a job lock so that of
/// several FieldSync processes on one database only one runs a job at a time.
///
/// ```swift
/// let worker = Worker(jobs: [RetentionJob(...)], locks: PostgresJobLocks(database: client), interval: .seconds(600), logger: logger)
/// try worker.start()
/// …
/// worker.stop()
/// ```
public final class Worker: Service {
    public let name = "worker"
    private let jobs: [any Job]
    private let locks: any JobLocks
    private let interval: Duration
    private let logger: Logger
    /// Signalled by `stop()` to end the wait between passes early.
    private let wakeUp = NSCondition()
    private let running = Mutex(false)
    /// Signalled by the loop's thread when it has finished.
    private let finished = DispatchSemaphore(value: 0)

    public init(jobs: [any Job], locks: any JobLocks, interval: Duration, logger: Logger) {
        self.jobs = jobs
        self.locks = locks
        self.interval = interval
        self.logger = logger
    }

    /// Starts the loop: a pass at once, then one every `interval`.
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
            runOnce()
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            wakeUp.lock()
            if isRunning { _ = wakeUp.wait(until: Date(timeIntervalSinceNow: seconds)) }
            wakeUp.unlock()
        }
    }

    /// Runs every job once (skipping those another process is running now); also usable without `start()`.
    public func runOnce() {
        for job in jobs {
            do {
                guard let summary = try locks.whileHolding(job.name, job.run) else {
                    logger.debug("job skipped: running elsewhere", metadata: ["job.name": job.name])
                    continue
                }
                logger.info("job finished: \(summary)", metadata: ["job.name": job.name])
            } catch {
                logger.error("job failed: \(error)", metadata: ["job.name": job.name])
            }
        }
    }
}
