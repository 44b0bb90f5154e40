import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Both directions of one relayed connection, and the cut that may end them.
final class RelayedConnection: Sendable {
    let client: Int32
    let server: Int32
    /// Bytes after which the connection is cut; nil: never.
    private let budget: Int64?
    private let relayed = Atomic<Int64>(0)
    private let isCut = Atomic(false)
    private let onCut: @Sendable () -> Void

    init(client: Int32, server: Int32, budget: Int64?, onCut: @escaping @Sendable () -> Void) {
        self.client = client
        self.server = server
        self.budget = budget
        self.onCut = onCut
    }

    var wasCut: Bool { isCut.load(ordering: .relaxed) }

    /// Runs the pipes' threads; closes both sockets once all of them are done.
    func run(_ pipes: [ShapedPipe]) {
        let group = DispatchGroup()
        for pipe in pipes {
            for work in [pipe.readLoop, pipe.writeLoop] {
                group.enter()
                Thread {
                    work()
                    group.leave()
                }.start()
            }
        }
        group.notify(queue: .global()) { [self] in
            close(client)
            close(server)
        }
    }

    /// Counts bytes delivered; past the budget, cuts.
    func delivered(_ count: Int) {
        let total = relayed.add(Int64(count), ordering: .relaxed).newValue
        if let budget, total >= budget { cut() }
    }

    /// Drops the connection at once, both ways, whatever is still in flight. `random`: the
    /// link's own cut (counted), not an end one of the peers chose.
    func cut(random: Bool = true) {
        guard isCut.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        if random { onCut() }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }
}

/// One direction of a relayed connection: bytes read from `from` leave the link at its
/// rate (shared with the link's other connections), arrive `delay` later, and are written to
/// `to`. At most `window` bytes wait in the link, so a fast sender is held back as by a real one.
final class ShapedPipe: @unchecked Sendable {
    // @unchecked: the queue, its byte count and `readerDone` are touched only under `condition`.
    private let from: Int32
    private let to: Int32
    private let link: LinkClock
    private let delay: Duration
    private let connection: RelayedConnection
    private let counted: @Sendable (Int) -> Void
    private let condition = NSCondition()
    private var queue: [(data: Data, deliverAt: ContinuousClock.Instant)] = []
    private var queuedBytes = 0
    private var readerDone = false
    private let readSize: Int
    private let window: Int

    init(
        from: Int32, to: Int32, link: LinkClock, delay: Duration, connection: RelayedConnection,
        counted: @escaping @Sendable (Int) -> Void
    ) {
        (self.from, self.to, self.link, self.delay, self.connection, self.counted) = (from, to, link, delay, connection, counted)
        // About 20 ms of the link per read keeps the pacing smooth (and connections sharing it
        // take turns at that grain).
        readSize = link.bitsPerSecond.map { max(512, min(65_536, Int($0 / 8 / 50))) } ?? 65_536
        window = max(readSize * 8, 64 * 1024)
    }

    func readLoop() {
        var buffer = [UInt8](repeating: 0, count: readSize)
        while true {
            let count = read(from, &buffer, readSize)
            guard count > 0 else { break }
            let data = Data(buffer[0..<count])
            condition.lock()
            while queuedBytes > window && !connection.wasCut { condition.wait() }
            queue.append((data, link.book(count) + delay))
            queuedBytes += count
            condition.broadcast()
            condition.unlock()
            if connection.wasCut { break }
        }
        condition.lock()
        readerDone = true
        condition.broadcast()
        condition.unlock()
    }

    func writeLoop() {
        while true {
            condition.lock()
            while queue.isEmpty && !readerDone && !connection.wasCut { _ = condition.wait(until: Date().addingTimeInterval(0.5)) }
            guard !connection.wasCut, !queue.isEmpty else {
                condition.unlock()
                break
            }
            let item = queue.removeFirst()
            queuedBytes -= item.data.count
            condition.broadcast()
            condition.unlock()
            let wait = item.deliverAt - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18) }
            guard !connection.wasCut, writeAll(item.data) else {
                // The receiving peer has gone: end the other direction too.
                connection.cut(random: false)
                break
            }
            counted(item.data.count)
            connection.delivered(item.data.count)
        }
        // The sender finished: pass the end of stream on (a cut already closed both ways).
        if !connection.wasCut { shutdown(to, Int32(SHUT_WR)) }
        // Wake a reader held back by a full window.
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func writeAll(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(to, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
