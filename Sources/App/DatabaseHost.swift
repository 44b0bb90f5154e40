import Foundation
public import Postgres
public import Support

/// The PostgreSQL that FieldSync runs on: the server named by `DATABASE_URL`, or
/// the private cluster under the data directory (started here when not already running).
public final class DatabaseHost: Sendable {
    public let configuration: PostgresConfiguration
    private let cluster: LocalCluster?
    private let supervisor: ClusterSupervisor?

    private init(configuration: PostgresConfiguration, cluster: LocalCluster?, supervisor: ClusterSupervisor? = nil) {
        self.configuration = configuration
        self.cluster = cluster
        self.supervisor = supervisor
    }

    /// Uses `app.database`, else connects to `DATABASE_URL`, else creates/reuses/starts the embedded cluster.
    /// - Parameter onClusterLost: given by the long-lived server only. The embedded cluster is then
    ///   this process's to stop even when a killed predecessor left it running, and it is started
    ///   again whenever it dies; this is called with the reason when that fails.
    public static func open(
        _ app: AppConfiguration, logger: Logger, onClusterLost: (@Sendable (_ reason: String) -> Void)? = nil
    ) throws -> DatabaseHost {
        if let database = app.database {
            return DatabaseHost(configuration: database, cluster: nil)
        }
        if let url = app.databaseURL {
            return DatabaseHost(configuration: try PostgresConfiguration(url: url), cluster: nil)
        }
        try FileManager.default.createDirectory(at: app.dataDirectory, withIntermediateDirectories: true)
        let cluster = LocalCluster(directory: app.dataDirectory, logger: logger, settings: app.embeddedClusterSettings)
        let configuration = try cluster.start(adoptingRunningServer: onClusterLost != nil)
        let supervisor = onClusterLost.map { ClusterSupervisor(cluster: cluster, port: configuration.port, logger: logger, onFailure: $0) }
        supervisor?.start()
        return DatabaseHost(configuration: configuration, cluster: cluster, supervisor: supervisor)
    }

    /// Stops the embedded cluster if this process started (or adopted) it; an external server is left alone.
    public func close() throws {
        supervisor?.stop()
        try cluster?.stop()
    }
}
