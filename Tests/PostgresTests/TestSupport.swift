import Dispatch
import Foundation
import Postgres
import PostgresTesting
import Support
import Synchronization

let testLogger = Logger(label: "fieldsync.postgres-tests", level: .warning)

/// One database shared by the tests that touch only session-local state (queries, temporary
/// tables, prepared statements): creating a database costs ~0.2 s, a connection ~5 ms.
private let sessionDatabase = Result { try TestDatabase.configuration() }

/// A new session on the shared database; create only `TEMP` tables through it.
func sessionConnection() throws -> PostgresConnection {
    try PostgresConnection(configuration: sessionDatabase.get(), logger: testLogger)
}

/// Runs `body(0..<count)` on that many dedicated threads at once and waits for all of them.
/// Threads, not the cooperative pool: every body blocks in libpq.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            body(index)
            done.signal()
        }.start()
    }
    for _ in 0..<count { done.wait() }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: TimeInterval = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    } while Date() < deadline
    return false
}

/// A value several threads append to.
final class Collected<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])

    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}

/// Terminates a backend and waits until the server has really dropped it.
func terminateBackend(_ pid: Int, using admin: PostgresConnection) throws {
    try admin.query("SELECT pg_terminate_backend(\(pid))")
    let gone = try eventually {
        try admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(pid)").isEmpty
    }
    precondition(gone, "backend \(pid) did not exit")
}

/// The process id of the connection's server backend.
func backendPID(_ connection: PostgresConnection) throws -> Int {
    try connection.query("SELECT pg_backend_pid()")[0].decode(0, as: Int.self)
}
