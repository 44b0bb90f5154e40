/// Lets at most `width` holders in at a time; later callers wait their turn, first come,
/// first served.
actor TurnGate {
    private let width: Int
    private var holders = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = max(width, 1)
    }

    func acquire() async {
        guard holders >= width else {
            holders += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the longest waiting caller, if any.
    func release() {
        if waiting.isEmpty { holders -= 1 } else { waiting.removeFirst().resume() }
    }
}
