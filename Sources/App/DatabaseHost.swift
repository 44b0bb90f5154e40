import Foundation
public import Postgres
public import Support

/// The PostgreSQL that FieldSync runs on: the server named by `DATABASE_URL`, or
/// the private cluster under the data directory (started here when not already running).
public final class DatabaseHost: Sendable {
    public let configuration: PostgresConfiguration
    private let cluster: LocalCluster?

    private init(configuration: PostgresConfiguration, cluster: LocalCluster?) {
        self.configuration = configuration
        self.cluster = cluster
    }

    /// Uses `app.database`, else connects to `DATABASE_URL`, else creates/reuses/starts the embedded cluster.
    public static func open(_ app: AppConfiguration, logger: Logger) throws -> DatabaseHost {
        if let database = app.database {
            return DatabaseHost(configuration: database, cluster: nil)
        }
        if let url = app.databaseURL {
            return DatabaseHost(configuration: try PostgresConfiguration(url: url), cluster: nil)
        }
        try FileManager.default.createDirectory(at: app.dataDirectory, withIntermediateDirectories: true)
        let cluster = LocalCluster(directory: app.dataDirectory, logger: logger)
        return DatabaseHost(configuration: try cluster.start(), cluster: cluster)
    }

    /// Stops the embedded cluster if this process started it; an external server is left alone.
    public func close() throws {
        try cluster?.stop()
    }
}
