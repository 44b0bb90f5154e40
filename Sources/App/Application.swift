import Foundation
import HTTP
import Storage
public import Support
import SyncAPI
import SyncEngine
import WebUI
public import Worker

/// The running server: the database, the features on their routes and pages, and the
/// services that run while it serves, started in order and stopped in reverse.
///
/// ```swift
/// let app = try Application.start(configuration, logger: logger)
/// ShutdownSignal().wait()
/// app.shutdown()
/// ```
public final class Application: Sendable {
    public let configuration: AppConfiguration
    public let core: Core
    public let features: [any Feature]
    private let database: DatabaseHost
    private let server: HTTPServer
    private let services: ServiceGroup
    private let logger: Logger

    private init(
        configuration: AppConfiguration, core: Core, features: [any Feature], database: DatabaseHost, server: HTTPServer,
        services: ServiceGroup, logger: Logger
    ) {
        self.configuration = configuration
        self.core = core
        self.features = features
        self.database = database
        self.server = server
        self.services = services
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
        let core: Core
        do {
            core = try Core.open(configuration, database: database.configuration, logger: logger)
        } catch {
            try? database.close()
            throw error
        }
        do {
            try core.bootstrapFirstAdmin(password: configuration.adminPassword)
            let features = try Self.features(core)
            let http = httpConfiguration(configuration)
            // Routes that stream bodies to disk create their files here, a folder nothing
            // else creates.
            try FileManager.default.createDirectory(at: http.temporaryDirectory, withIntermediateDirectories: true)
            features.lazy.compactMap { $0 as? AttachmentsFeature }.first?.sweepLeftovers(temporaryDirectory: http.temporaryDirectory)
            // Built even with --no-worker: the jobs page lists its jobs (and says no worker runs here).
            let worker = Self.worker(core, features)
            let server = HTTPServer(configuration: http, router: try router(core, features, jobs: worker), logger: logger)
            let workers = configuration.runsWorker ? [worker] : []
            let services = ServiceGroup([core.notifications] + features.flatMap(\.services) + workers + [server], logger: logger)
            try services.start()
            logger.notice("FieldSync listening on http://\(configuration.host):\(server.port)")
            return Application(
                configuration: configuration, core: core, features: features, database: database, server: server, services: services,
                logger: logger)
        } catch {
            // The pool would otherwise outlive the failed start.
            core.close()
            try? database.close()
            removeDefaultSpoolIfEmpty(configuration)
            throw error
        }
    }

    /// The device API and the back-office, with every feature's routes and pages, and the
    /// jobs page of `jobs`.
    static func router(_ core: Core, _ features: [any Feature], jobs: any JobControl) throws -> Router {
        let router = Router(logger: core.logger, failures: APIFailureRenderer())
        let api = APIRoutes(router: router, access: core.deviceAccess)
        let setup = try BackOfficePages.Setup(
            resources: core.configuration.resourcesDirectory, csrfKey: try core.secret(named: "csrf"), configuration: core.configuration.web)
        let backOffice = BackOfficePages(
            router: router, setup: setup, sessions: PostgresWebSessionStore(database: core.database), accounts: core.accounts,
            logger: core.logger)
        for feature in features {
            feature.routes(on: api)
            feature.pages(on: backOffice)
        }
        backOffice.addJobsPages(control: jobs, runs: PostgresJobRunStore(database: core.database), settings: core.settings)
        return router
    }

    /// The background worker with every feature's jobs.
    public static func worker(_ core: Core, _ features: [any Feature]) -> Worker {
        Worker(jobs: features.flatMap(\.jobs), runner: jobRunner(core), tick: .seconds(core.configuration.workerInterval), logger: core.logger)
    }

    /// Runs jobs under their locks, recording each run.
    public static func jobRunner(_ core: Core) -> JobRunner {
        JobRunner(
            locks: PostgresJobLocks(database: core.database), runs: PostgresJobRunStore(database: core.database), settings: core.settings,
            logger: core.logger)
    }

    /// The bound port (useful when configured as 0).
    public var port: Int { server.port }

    /// The running feature of type `type`, e.g. to reach its stores from a benchmark or a test.
    public func feature<F: Feature>(_ type: F.Type) -> F? {
        features.lazy.compactMap { $0 as? F }.first
    }

    /// Stops accepting, finishes in-flight requests (for up to `timeout`), stops the services in
    /// reverse order, closes the pool and stops the embedded cluster. The default spool folder
    /// goes too when no body is left in it, so the system temp directory keeps no empty folders.
    public func shutdown(timeout: Duration = .seconds(10)) {
        logger.notice("FieldSync shutting down")
        server.shutdown(timeout: timeout)
        Self.removeDefaultSpoolIfEmpty(configuration)
        services.stop()
        core.close()
        do {
            try database.close()
        } catch {
            logger.error("stopping the embedded PostgreSQL failed: \(error)")
        }
    }

    /// An operator's own spool folder stays; the default one is this server's alone.
    private static func removeDefaultSpoolIfEmpty(_ configuration: AppConfiguration) {
        let folder = configuration.spoolDirectory
        guard configuration.connections.spoolDirectory == nil,
            (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true
        else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    private static func httpConfiguration(_ app: AppConfiguration) -> HTTPServer.Configuration {
        var http = HTTPServer.Configuration()
        http.host = app.host
        http.port = app.port
        http.workerThreads = app.workerThreads
        http.temporaryDirectory = app.spoolDirectory
        http.spoolBytesLimit = app.connections.spoolBytes
        http.spoolBytesPerAddress = app.connections.spoolBytesPerAddress
        http.connectionLimit = app.connections.limit
        http.perAddressConnectionLimit = app.connections.perAddress
        http.reservedConnections = app.connections.reserved
        http.sheddablePathPrefixes = ["/v1/"]
        http.headerTimeoutSeconds = app.connections.headerTimeoutSeconds
        http.bodyTimeoutSeconds = app.connections.bodyTimeoutSeconds
        http.trustedProxies = app.connections.trustedProxies
        return http
    }
}
