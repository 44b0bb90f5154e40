import Synchronization

/// The areas the navigation links to, in the order their main pages were added: filled while
/// the back-office's pages are declared, read by every page render.
final class Navigation: Sendable {
    private let areas = Mutex<[Area]>([])

    init(_ areas: [Area] = []) {
        self.areas.withLock { $0 = areas }
    }

    /// Lists `area` once its main page exists (again: no change).
    func add(_ area: Area) {
        areas.withLock { areas in
            if !areas.contains(area) { areas.append(area) }
        }
    }

    var all: [Area] { areas.withLock { $0 } }

    func contains(_ area: Area) -> Bool { all.contains(area) }
}
