internal import Synchronization

/// The disk request bodies may take while they arrive: in all, and per owner (the user a
/// route's `admit` check names, else the client address), so that neither a flood of
/// uploads nor one client can fill the spool's volume.
///
/// A body reserves its declared length (or its route's cap when it declares none) before
/// its first byte is written, and gives it back when the request is over.
final class SpoolBudget: Sendable {
    private struct State {
        var total = 0
        var perOwner: [String: Int] = [:]
    }

    private let totalLimit: Int
    private let perOwnerLimit: Int
    private let state = Mutex(State())

    init(totalLimit: Int, perOwnerLimit: Int) {
        self.totalLimit = totalLimit
        self.perOwnerLimit = perOwnerLimit
    }

    /// Reserves `bytes` for `owner`; false (nothing reserved) when a budget would be exceeded.
    func reserve(_ bytes: Int, for owner: String) -> Bool {
        state.withLock { state in
            let held = state.perOwner[owner] ?? 0
            guard bytes <= totalLimit - state.total, bytes <= perOwnerLimit - held else { return false }
            state.total += bytes
            state.perOwner[owner] = held + bytes
            return true
        }
    }

    /// Gives back a reservation.
    func release(_ bytes: Int, for owner: String) {
        state.withLock { state in
            state.total -= bytes
            let left = (state.perOwner[owner] ?? bytes) - bytes
            state.perOwner[owner] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now, in all.
    var reserved: Int { state.withLock { $0.total } }
}
