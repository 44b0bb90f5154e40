public import Foundation

/// A response body written on a thread of its own and sent as the client takes it, for large
/// downloads built from the database a batch at a time.
///
/// The producer blocks while `capacity` bytes wait unsent, so one download holds about that
/// much in memory whatever its size; it stops (its `write` throws) once the client has gone.
/// ```swift
/// let body = ProducedStream { write in
///     try write(header)
///     try store.forEachBatch { try write(encode($0)) }
/// }
/// return Response(headers: ["Content-Type": "text/csv"], body: .stream(body))
/// ```
public final class ProducedStream: ResponseStream, @unchecked Sendable {  // state guarded by `condition`
    /// The client went away; the producer should stop.
    public struct Closed: Error {}

    private let condition = NSCondition()
    private let capacity: Int
    private var chunks: [Data] = []
    private var buffered = 0
    private var finished = false
    private var closed = false
    private var wake: (@Sendable () -> Void)?

    /// Starts `produce` on a new thread. It calls `write` with each piece of the body; the
    /// body ends when it returns or throws (a failure part-way ends the body early).
    public init(capacity: Int = 1 << 20, produce: @escaping @Sendable (_ write: (Data) throws -> Void) throws -> Void) {
        self.capacity = capacity
        let thread = Thread { [self] in
            try? produce(write)
            finish()
        }
        thread.name = "fieldsync.produced-stream"
        thread.start()
    }

    private func write(_ data: Data) throws {
        guard !data.isEmpty else { return }
        condition.lock()
        while buffered >= capacity, !closed { condition.wait() }
        guard !closed else {
            condition.unlock()
            throw Closed()
        }
        chunks.append(data)
        buffered += data.count
        let wake = self.wake
        condition.unlock()
        wake?()
    }

    private func finish() {
        condition.lock()
        finished = true
        let wake = self.wake
        condition.unlock()
        wake?()
    }

    // MARK: - ResponseStream

    public func read(maxBytes: Int) -> StreamChunk {
        condition.lock()
        defer { condition.unlock() }
        guard !chunks.isEmpty else { return finished ? .end : .wait }
        // Whole chunks that fit, and the first even when larger (the server keeps the rest).
        var data = chunks[0]
        var taken = 1
        while taken < chunks.count, data.count + chunks[taken].count <= maxBytes {
            data.append(chunks[taken])
            taken += 1
        }
        chunks.removeFirst(taken)
        buffered -= data.count
        condition.broadcast()
        return .data(data)
    }

    public func setWakeHandler(_ wake: @escaping @Sendable () -> Void) {
        condition.lock()
        self.wake = wake
        condition.unlock()
    }

    public func close() {
        condition.lock()
        closed = true
        chunks = []
        buffered = 0
        condition.broadcast()
        condition.unlock()
    }
}
