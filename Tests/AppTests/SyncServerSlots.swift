import App
import AppTesting

extension ServerSlots {
    /// The slots of the sync test servers.
    static let shared = ServerSlots(limit: 6)
}

extension TestServer {
    /// A test server started once one of the `ServerSlots` is free; end it with `finish()`.
    /// - Parameter poolSize: its PostgreSQL connections; small, since the other suites share the cluster.
    static func startSync(poolSize: Int = 2) async throws -> TestServer {
        await ServerSlots.shared.acquire()
        do {
            return try await start { $0.databasePoolSize = poolSize }
        } catch {
            ServerSlots.shared.release()
            throw error
        }
    }

    /// Stops a server of `startSync()` and frees its slot.
    func finish() {
        stop()
        ServerSlots.shared.release()
    }
}
