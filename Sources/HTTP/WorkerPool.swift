internal import Foundation
internal import Synchronization

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
/// Threads start on demand up to `maxThreads`; at most `queueLimit` jobs wait. A job
/// goes straight to the most recently idle thread (its stack and caches are warm), which
/// is woken through its own semaphore after the pool lock is released, so a woken
/// thread never queues on the lock the submitter still holds.
final class WorkerPool: Sendable {
    private struct State {
        var queue: [(any PoolJob)?]
        var queueHead = 0
        var queuedCount = 0
        /// Every thread started, to find running jobs at shutdown.
        var workers: [Worker] = []
        /// Threads waiting for work, the most recently idle last.
        var idle: [Worker] = []
        /// Jobs queued or running.
        var busyCount = 0
        var isClosed = false

        mutating func enqueue(_ job: any PoolJob) -> Bool {
            guard queuedCount < queue.count else { return false }
            queue[(queueHead + queuedCount) % queue.count] = job
            queuedCount += 1
            return true
        }

        mutating func dequeue() -> (any PoolJob)? {
            guard queuedCount > 0 else { return nil }
            defer {
                queue[queueHead] = nil
                queueHead = (queueHead + 1) % queue.count
                queuedCount -= 1
            }
            return queue[queueHead]
        }
    }

    /// One thread's mailbox: the job it runs (nil while idle) and the semaphore that wakes
    /// it. `job` is written only under the pool lock; the thread reads it after its wait
    /// returns, which the semaphore orders after the write.
    private final class Worker: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        var job: (any PoolJob)?
    }

    private let state: Mutex<State>
    private let maxThreads: Int

    init(maxThreads: Int, queueLimit: Int) {
        self.maxThreads = max(1, maxThreads)
        state = Mutex(State(queue: Array(repeating: nil, count: max(1, queueLimit))))
    }

    /// Hands `job` to an idle or new thread, or queues it; false when the queue is full
    /// or the pool is closed.
    func submit(_ job: any PoolJob) -> Bool {
        let (accepted, woken, started) = state.withLock { state -> (Bool, Worker?, Worker?) in
            guard !state.isClosed else { return (false, nil, nil) }
            if let worker = state.idle.popLast() {
                worker.job = job
                state.busyCount += 1
                return (true, worker, nil)
            }
            if state.workers.count < maxThreads {
                let worker = Worker()
                worker.job = job
                state.workers.append(worker)
                state.busyCount += 1
                return (true, nil, worker)
            }
            guard state.enqueue(job) else { return (false, nil, nil) }
            state.busyCount += 1
            return (true, nil, nil)
        }
        woken?.wake.signal()
        if let started { startThread(started) }
        return accepted
    }

    /// Waits until no job is queued or running, or until `deadline`; true when idle.
    func waitUntilIdle(deadline: ContinuousClock.Instant) -> Bool {
        // Only shutdown waits, so a short poll beats signalling a condition on every job.
        while state.withLock({ $0.busyCount }) > 0 {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    /// Refuses new jobs and returns those still queued or running, so the caller can
    /// abandon them. Idle threads exit now, busy ones once their job returns.
    func close() -> [any PoolJob] {
        let (jobs, idle) = state.withLock { state -> ([any PoolJob], [Worker]) in
            state.isClosed = true
            var jobs = state.workers.compactMap(\.job)
            while let job = state.dequeue() { jobs.append(job) }
            defer { state.idle.removeAll() }
            return (jobs, state.idle)
        }
        for worker in idle { worker.wake.signal() }
        return jobs
    }

    private func startThread(_ worker: Worker) {
        let thread = Thread { [self] in workLoop(worker) }
        thread.name = "fieldsync-http-worker"
        thread.start()
    }

    private func workLoop(_ worker: Worker) {
        var job = worker.job
        while let current = job {
            current.run()
            let next = state.withLock { state -> NextStep in
                state.busyCount -= 1
                worker.job = state.dequeue()
                if worker.job != nil { return .run }
                if state.isClosed { return .exit }
                state.idle.append(worker)
                return .wait
            }
            switch next {
            case .run: job = worker.job
            case .exit: job = nil
            case .wait:
                // A submitter (or `close`, leaving `job` nil) signals exactly once per
                // idle entry, so every wait is matched.
                worker.wake.wait()
                job = worker.job
            }
        }
    }

    private enum NextStep { case run, wait, exit }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
