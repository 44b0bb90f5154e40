public import Support

/// Keeps a `LocalCluster` running for as long as its long-lived owner (`fieldsync serve`) runs.
///
/// Every `interval` it checks that the postmaster is alive. When it has died (killed by an
/// operator or the out-of-memory killer), the supervisor starts it again on the same port, so
/// pooled connections and listeners reconnect by themselves; requests fail only meanwhile. When
/// the server cannot be started again within the cluster's `launchPatience`, `onFailure` is told
/// why, once, and the supervisor stops watching: the owner should then exit and leave the
/// restart to its service manager.
///
/// ```swift
/// let supervisor = ClusterSupervisor(cluster: cluster, port: configuration.port, logger: logger) { reason in
///     shutdown.trigger(reason)
/// }
/// supervisor.start()
/// defer { supervisor.stop() }
/// ```
public final class ClusterSupervisor: Sendable {
    private let cluster: LocalCluster
    private let port: Int
    private let interval: Duration
    private let logger: Logger
    private let onFailure: @Sendable (_ reason: String) -> Void
    private let thread = StoppableThread(name: "fieldsync-cluster-supervisor")

    /// - Parameters:
    ///   - port: the port clients connect to; the server is started again on it.
    ///   - interval: time between two checks (a check reads the pid file and signals the pid).
    ///   - onFailure: called on the supervisor's thread when the server cannot be started again.
    public init(
        cluster: LocalCluster, port: Int, interval: Duration = .milliseconds(500), logger: Logger,
        onFailure: @escaping @Sendable (_ reason: String) -> Void
    ) {
        self.cluster = cluster
        self.port = port
        self.interval = interval
        self.logger = logger
        self.onFailure = onFailure
    }

    /// Starts watching on a thread of its own (a restart blocks for seconds in `pg_ctl`); does
    /// nothing if already watching.
    public func start() {
        thread.start { [self] in watch() }
    }

    /// Stops watching and waits for the thread (a restart under way is finished first).
    public func stop() {
        thread.stop()
    }

    private func watch() {
        while !thread.isStopping {
            thread.pause(for: interval)
            guard !thread.isStopping, !cluster.isRunning else { continue }
            logger.error("the embedded PostgreSQL stopped unexpectedly; starting it again", metadata: ["db.port": "\(port)"])
            do {
                let restarted = try cluster.start(port: port)
                guard restarted.port == port else {
                    // Someone else started it meanwhile, elsewhere: connections cannot follow.
                    onFailure("the embedded PostgreSQL was started again on port \(restarted.port) instead of \(port)")
                    return
                }
                logger.notice("the embedded PostgreSQL is running again", metadata: ["db.port": "\(port)"])
            } catch {
                onFailure("the embedded PostgreSQL stopped and could not be started again: \(error)")
                return
            }
        }
    }
}
