import Synchronization

/// The areas whose main pages exist, in the order they were added: filled while the
/// back-office's pages are declared, read by every page render. The navigation links to
/// those of them that are navigation entries.
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

    /// The navigation's entries.
    var all: [Area] { areas.withLock { $0.filter(\.inNavigation) } }

    func contains(_ area: Area) -> Bool { areas.withLock { $0.contains(area) } }
}
