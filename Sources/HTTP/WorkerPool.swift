internal import Foundation

/// Work the pool runs once on one of its threads, or abandons at a forced shutdown.
protocol PoolJob: AnyObject, Sendable {
    func run()
    /// The server is stopping and will not wait for this job (queued or running).
    func abandon()
}

/// A bounded pool of plain threads for handlers, which are synchronous and may block
/// (libpq is blocking). They must never run on libmicrohttpd's network threads (one
/// slow handler would stall every connection of its poll thread) nor on Swift's
/// cooperative pool (a few blocked handlers would starve all async code).
///
/// Threads start on demand up to `maxThreads`; at most `queueLimit` jobs wait.
final class WorkerPool: @unchecked Sendable {
    // Every stored var below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var queue: [(any PoolJob)?]
    private var queueHead = 0
    private var queuedCount = 0
    /// The job each thread is running, by thread index.
    private var running: [(any PoolJob)?]
    private var runningCount = 0
    private var threadCount = 0
    private var idleCount = 0
    private var isClosed = false
    private var idleWaiters = 0

    private let maxThreads: Int

    init(maxThreads: Int, queueLimit: Int) {
        self.maxThreads = max(1, maxThreads)
        queue = Array(repeating: nil, count: max(1, queueLimit))
        running = Array(repeating: nil, count: self.maxThreads)
    }

    /// Queues `job`; false when the queue is full or the pool is closed.
    func submit(_ job: any PoolJob) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed, queuedCount < queue.count else { return false }
        queue[(queueHead + queuedCount) % queue.count] = job
        queuedCount += 1
        if queuedCount > idleCount && threadCount < maxThreads {
            startThread(index: threadCount)
        } else {
            condition.signal()
        }
        return true
    }

    /// Waits until no job is queued or running, or until `deadline`; true when idle.
    func waitUntilIdle(deadline: ContinuousClock.Instant) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        idleWaiters += 1
        defer { idleWaiters -= 1 }
        while queuedCount + runningCount > 0 {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.seconds))
        }
        return true
    }

    /// Refuses new jobs and returns those still queued or running, so the caller can
    /// abandon them. Threads exit once their current job returns.
    func close() -> [any PoolJob] {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        var jobs = running.compactMap { $0 }
        while queuedCount > 0 {
            jobs.append(dequeue())
        }
        condition.broadcast()
        return jobs
    }

    private func startThread(index: Int) {
        threadCount += 1
        let thread = Thread { [self] in workLoop(index: index) }
        thread.name = "fieldsync-http-worker-\(index)"
        thread.start()
    }

    private func dequeue() -> any PoolJob {
        let job = queue[queueHead]!
        queue[queueHead] = nil
        queueHead = (queueHead + 1) % queue.count
        queuedCount -= 1
        return job
    }

    private func workLoop(index: Int) {
        condition.lock()
        while true {
            while queuedCount == 0 && !isClosed {
                idleCount += 1
                condition.wait()
                idleCount -= 1
            }
            guard queuedCount > 0 else { break }
            let job = dequeue()
            running[index] = job
            runningCount += 1
            condition.unlock()
            job.run()
            condition.lock()
            running[index] = nil
            runningCount -= 1
            // Only a shutdown waits for idleness; waking it on every idle moment would
            // also wake every sleeping worker.
            if idleWaiters > 0 && queuedCount + runningCount == 0 { condition.broadcast() }
        }
        threadCount -= 1
        condition.unlock()
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
