internal import Foundation
internal import Synchronization

/// Every open connection, its client address and the deadline by which it must have sent
/// what it owes: a request head, then that request's body. A connection past its deadline
/// (a slowloris dribbling bytes to keep an idle timer alive) is shut down.
///
/// Its owner calls, from libmicrohttpd's threads: `admits` at accept, `opened` and `closed`
/// from MHD's connection notices, `headersReceived` at a request's first access call,
/// `requestReceived` once its body is in (no deadline while the handler runs or a stream
/// flows) and `requestCompleted` when MHD is done with it (the next head is due).
final class ConnectionRegistry: Sendable {
    struct Limits {
        /// Connections one address may hold; 0 for no limit. Trusted proxies are exempt.
        var perAddress: Int
        var trustedProxies: Set<String>
        /// Time to send a request head, from accept or from the previous request's end.
        var headerTimeout: Duration
        /// Time to send a request's body once its head is in.
        var bodyTimeout: Duration
    }

    private struct Entry {
        let descriptor: Int32
        let address: String
        var deadline: ContinuousClock.Instant?
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var perAddress: [String: Int] = [:]
    }

    private let limits: Limits
    private let state = Mutex(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether a new connection from `address` stays within the per-address limit.
    func admits(_ address: String) -> Bool {
        guard limits.perAddress > 0, !limits.trustedProxies.contains(address) else { return true }
        return state.withLock { ($0.perAddress[address] ?? 0) < limits.perAddress }
    }

    /// The number of open connections.
    var count: Int { state.withLock { $0.entries.count } }

    func opened(_ connection: OpaquePointer, descriptor: Int32, address: String) {
        let entry = Entry(descriptor: descriptor, address: address, deadline: .now + limits.headerTimeout)
        state.withLock { state in
            state.entries[Self.key(connection)] = entry
            state.perAddress[address, default: 0] += 1
        }
    }

    /// Called by MHD before it closes the socket, under the same lock `closeOverdue` shuts
    /// sockets down with: a descriptor is never shut down after it was handed back.
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: Self.key(connection)) else { return }
            let remaining = (state.perAddress[entry.address] ?? 1) - 1
            state.perAddress[entry.address] = remaining > 0 ? remaining : nil
        }
    }

    func headersReceived(_ connection: OpaquePointer) { setDeadline(connection, .now + limits.bodyTimeout) }

    func requestReceived(_ connection: OpaquePointer) { setDeadline(connection, nil) }

    func requestCompleted(_ connection: OpaquePointer) { setDeadline(connection, .now + limits.headerTimeout) }

    /// Shuts down every connection past its deadline; MHD then sees the socket end and closes it.
    /// - Returns: how many were shut down.
    @discardableResult
    func closeOverdue(now: ContinuousClock.Instant = .now) -> Int {
        state.withLock { state in
            var closed = 0
            for (key, entry) in state.entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                shutdown(entry.descriptor, Int32(SHUT_RDWR))
                state.entries[key]?.deadline = nil
                closed += 1
            }
            return closed
        }
    }

    private func setDeadline(_ connection: OpaquePointer, _ deadline: ContinuousClock.Instant?) {
        state.withLock { $0.entries[Self.key(connection)]?.deadline = deadline }
    }

    private static func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }
}
