internal import Synchronization

/// The disk request bodies may take while they arrive: in all, and per client address, so
/// that neither a flood of uploads nor one client can fill the spool's volume.
///
/// A body reserves its declared length (or its route's cap when it declares none) before
/// its first byte is written, and gives it back when the request is over.
final class SpoolBudget: Sendable {
    private struct State {
        var total = 0
        var perAddress: [String: Int] = [:]
    }

    private let totalLimit: Int
    private let perAddressLimit: Int
    private let state = Mutex(State())

    init(totalLimit: Int, perAddressLimit: Int) {
        self.totalLimit = totalLimit
        self.perAddressLimit = perAddressLimit
    }

    /// Reserves `bytes` for `address`; false (nothing reserved) when a budget would be exceeded.
    func reserve(_ bytes: Int, for address: String) -> Bool {
        state.withLock { state in
            let held = state.perAddress[address] ?? 0
            guard bytes <= totalLimit - state.total, bytes <= perAddressLimit - held else { return false }
            state.total += bytes
            state.perAddress[address] = held + bytes
            return true
        }
    }

    /// Gives back a reservation.
    func release(_ bytes: Int, for address: String) {
        state.withLock { state in
            state.total -= bytes
            let left = (state.perAddress[address] ?? bytes) - bytes
            state.perAddress[address] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now, in all.
    var reserved: Int { state.withLock { $0.total } }
}
