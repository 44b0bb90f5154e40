import Cryptography
import Foundation
import HTTP
import Postgres
import Storage
import Support

/// The running server: database, migrations, services and the HTTP listener, started
/// in that order and stopped in reverse.
///
/// ```swift
/// let app = try Application.start(configuration, logger: logger)
/// ShutdownSignal().wait()
/// app.shutdown()
/// ```
public final class Application: Sendable {
    public let configuration: AppConfiguration
    public let services: Services
    private let database: DatabaseHost
    private let server: HTTPServer
    private let logger: Logger

    private init(configuration: AppConfiguration, services: Services, database: DatabaseHost, server: HTTPServer, logger: Logger) {
        self.configuration = configuration
        self.services = services
        self.database = database
        self.server = server
        self.logger = logger
    }

    /// Opens the database, applies migrations, creates the first admin when there are no
    /// users, and starts serving.
    /// - Parameter onDatabaseLost: when given, the embedded PostgreSQL is kept running (see
    ///   `DatabaseHost.open`) and this is called with the reason if it cannot be.
    public static func start(
        _ configuration: AppConfiguration, logger: Logger, onDatabaseLost: (@Sendable (_ reason: String) -> Void)? = nil
    ) throws -> Application {
        let database = try DatabaseHost.open(configuration, logger: logger, onClusterLost: onDatabaseLost)
        let services: Services
        do {
            services = try Services.open(configuration, database: database.configuration, logger: logger)
        } catch {
            try? database.close()
            throw error
        }
        do {
            try services.bootstrapFirstAdmin(password: configuration.adminPassword)
            let http = httpConfiguration(configuration)
            // Routes that stream bodies to disk create their files here; with DATABASE_URL
            // nothing else creates the data folder.
            try FileManager.default.createDirectory(at: http.temporaryDirectory, withIntermediateDirectories: true)
            let router = try Routes.build(services, resources: configuration.resourcesDirectory)
            let server = HTTPServer(configuration: http, router: router, logger: logger)
            try server.start()
            if configuration.runsWorker { services.worker.start() }
            logger.notice("FieldSync listening on http://\(configuration.host):\(server.port)")
            return Application(configuration: configuration, services: services, database: database, server: server, logger: logger)
        } catch {
            // The pool and the listener thread would otherwise outlive the failed start.
            services.close()
            try? database.close()
            throw error
        }
    }

    /// The bound port (useful when configured as 0).
    public var port: Int { server.port }

    /// Stops accepting, finishes in-flight requests, closes the pool and stops the embedded cluster.
    public func shutdown(timeout: Duration = .seconds(10)) {
        logger.notice("FieldSync shutting down")
        server.shutdown(timeout: timeout)
        services.close()
        do {
            try database.close()
        } catch {
            logger.error("stopping the embedded PostgreSQL failed: \(error)")
        }
    }

    private static func httpConfiguration(_ app: AppConfiguration) -> HTTPServer.Configuration {
        var http = HTTPServer.Configuration()
        http.host = app.host
        http.port = app.port
        http.workerThreads = app.workerThreads
        http.temporaryDirectory = app.dataDirectory.appendingPathComponent("tmp")
        return http
    }
}
