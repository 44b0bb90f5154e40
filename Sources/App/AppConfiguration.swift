import Cryptography
public import Foundation
public import Postgres
public import Support
public import SyncAPI
public import SyncEngine
public import WebUI

/// Everything `fieldsync` needs to start, from flags over `FIELDSYNC_*` variables over defaults.
/// Checked eagerly: a bad value stops the start with a message naming the setting.
public struct AppConfiguration: Sendable {
    /// Address and port the HTTP server binds (`--host`, `--port`; `FIELDSYNC_HOST`, `FIELDSYNC_PORT`).
    public var host = "127.0.0.1"
    public var port = 8080
    /// Where the embedded cluster, blobs and temp files live (`--data-dir`, `FIELDSYNC_DATA_DIR`).
    public var dataDirectory = URL(fileURLWithPath: ".fieldsync")
    /// Where finished attachments are stored (`--blob-dir`, `FIELDSYNC_BLOB_DIR`); `<data-dir>/blobs` when unset.
    public var blobDirectory: URL?
    /// An external PostgreSQL server; when set, no embedded cluster is started (`DATABASE_URL`).
    public var databaseURL: String?
    /// An external PostgreSQL server given directly (embedding and tests); takes precedence
    /// over `databaseURL`. Never read from the environment.
    public var database: PostgresConfiguration?
    /// Server settings (`name=value`) the embedded cluster starts with, beyond its own; for
    /// benchmarks that profile it. Never read from the environment.
    public var embeddedClusterSettings: [String] = []
    /// Connections in the pool (`FIELDSYNC_DB_POOL_SIZE`).
    public var databasePoolSize = 16
    /// Limits on every pooled database session, in milliseconds, 0 for none:
    /// `FIELDSYNC_DB_STATEMENT_TIMEOUT_MS` (default 30000), `FIELDSYNC_DB_LOCK_TIMEOUT_MS` (10000),
    /// `FIELDSYNC_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS` (30000).
    public var databaseTimeouts = SessionTimeouts()
    /// Threads that run request handlers (`FIELDSYNC_WORKER_THREADS`).
    public var workerThreads = 64
    /// Password for the first admin account (`FIELDSYNC_ADMIN_PASSWORD`); random when unset.
    public var adminPassword: String?
    /// Key that signs pull cursors (`FIELDSYNC_CURSOR_SECRET`); generated and stored when unset.
    public var cursorSecret: String?
    /// PBKDF2 work factor (`FIELDSYNC_PASSWORD_ITERATIONS`); lower it only for tests and benchmarks.
    public var passwordIterations = PasswordHasher.owaspIterations
    /// Log threshold (`FIELDSYNC_LOG_LEVEL`: trace, debug, info, notice, warning, error).
    public var logLevel = Logger.Level.info
    /// A collection schema to use instead of the built-in one (`FIELDSYNC_SCHEMA`, a JSON file);
    /// an invalid file stops the start with a message naming the collection and field.
    public var schemaFile: URL?
    /// Seconds a device token's grant is reused before it is read again
    /// (`FIELDSYNC_TOKEN_CACHE_SECONDS`); revocations and suspensions reach it at once through NOTIFY.
    public var tokenCacheSeconds = 2
    /// Whether `serve` also runs the background worker (`--no-worker` turns it off).
    public var runsWorker = true
    /// Seconds between the worker's looks for due jobs (`FIELDSYNC_WORKER_INTERVAL`); how
    /// often each job runs is a setting.
    public var workerInterval = 60
    /// Folder holding `Migrations/`, `Templates/` and `Public/` (`FIELDSYNC_RESOURCES`; found by default).
    public var resourcesDirectory: URL
    /// The most change JSON one pull page carries (`FIELDSYNC_MAX_PULL_PAGE_BYTES`), besides
    /// the `maxPullLimit` count; a page always carries at least one change. Default 4 MiB.
    public var maxPullPageBytes = PullService.defaultMaxPageBytes
    /// Most deferred ops one device may have held (`FIELDSYNC_MAX_DEFERRED_OPS`); a push past it
    /// gets 429 `TOO_MANY_DEFERRED`. Default 1,000.
    public var maxDeferredOpsPerDevice = SyncConfiguration().maxDeferredOpsPerDevice
    /// Connection limits, request deadlines and trusted proxies of the HTTP server.
    public var connections = ConnectionSettings()
    /// Password hashes verified at once (`FIELDSYNC_MAX_CONCURRENT_LOGINS`), and how failed
    /// logins slow further ones down.
    public var loginThrottling = LoginService.Throttling()
    /// Back-office session lifetimes, time zone and clock.
    public var web = WebConfiguration()
    /// The clock, in seconds, that devices' request rates are counted on; tests replace it so
    /// that a limit holds however slowly they run. Never read from the environment.
    public var rateLimitClock = RateLimiter.uptime
    /// Live event feeds: heartbeat, replay window, per-client queue, and the caps on open streams
    /// (`FIELDSYNC_MAX_STREAMS_PER_USER`, default 16; `FIELDSYNC_MAX_STREAMS`, default 200).
    public var liveEvents = EventHub.Options()

    public init(resourcesDirectory: URL) {
        self.resourcesDirectory = resourcesDirectory
    }

    /// The option names `serve` and the other commands accept.
    public static let valueOptions: Set<String> = ["host", "port", "data-dir", "blob-dir"]

    /// Reads flags over environment variables over defaults.
    public static func load(arguments: CommandLineArguments, environment: Environment = Environment()) throws -> AppConfiguration {
        var configuration = AppConfiguration(resourcesDirectory: try locateResources(environment: environment))
        configuration.host = arguments.value("host") ?? environment["FIELDSYNC_HOST"] ?? configuration.host
        if let port = try arguments.value("port").map(parsePort) ?? environment.integer("FIELDSYNC_PORT") {
            guard (0...65535).contains(port) else { throw ConfigurationError("port must be 0-65535, got \(port)") }
            configuration.port = port
        }
        if let directory = arguments.value("data-dir") ?? environment["FIELDSYNC_DATA_DIR"] {
            configuration.dataDirectory = URL(fileURLWithPath: directory)
        }
        configuration.blobDirectory = (arguments.value("blob-dir") ?? environment["FIELDSYNC_BLOB_DIR"]).map { URL(fileURLWithPath: $0) }
        configuration.databaseURL = environment["DATABASE_URL"]
        configuration.databasePoolSize = try positive(environment, "FIELDSYNC_DB_POOL_SIZE") ?? configuration.databasePoolSize
        try loadDatabaseTimeouts(into: &configuration.databaseTimeouts, environment)
        configuration.workerThreads = try positive(environment, "FIELDSYNC_WORKER_THREADS") ?? configuration.workerThreads
        configuration.adminPassword = environment["FIELDSYNC_ADMIN_PASSWORD"]
        configuration.cursorSecret = environment["FIELDSYNC_CURSOR_SECRET"]
        configuration.passwordIterations = try positive(environment, "FIELDSYNC_PASSWORD_ITERATIONS") ?? configuration.passwordIterations
        configuration.schemaFile = environment["FIELDSYNC_SCHEMA"].map { URL(fileURLWithPath: $0) }
        configuration.tokenCacheSeconds = try positive(environment, "FIELDSYNC_TOKEN_CACHE_SECONDS") ?? configuration.tokenCacheSeconds
        configuration.liveEvents.maxStreamsPerUser =
            try positive(environment, "FIELDSYNC_MAX_STREAMS_PER_USER") ?? configuration.liveEvents.maxStreamsPerUser
        configuration.liveEvents.maxStreams = try positive(environment, "FIELDSYNC_MAX_STREAMS") ?? configuration.liveEvents.maxStreams
        configuration.connections = try ConnectionSettings.load(environment)
        configuration.maxPullPageBytes = try positive(environment, "FIELDSYNC_MAX_PULL_PAGE_BYTES") ?? configuration.maxPullPageBytes
        configuration.maxDeferredOpsPerDevice =
            try positive(environment, "FIELDSYNC_MAX_DEFERRED_OPS") ?? configuration.maxDeferredOpsPerDevice
        configuration.loginThrottling.concurrentHashes =
            try positive(environment, "FIELDSYNC_MAX_CONCURRENT_LOGINS") ?? configuration.loginThrottling.concurrentHashes
        configuration.runsWorker = !arguments.has("no-worker")
        configuration.workerInterval = try positive(environment, "FIELDSYNC_WORKER_INTERVAL") ?? configuration.workerInterval
        if let name = environment["FIELDSYNC_LOG_LEVEL"] {
            guard let level = Logger.Level(name: name) else { throw ConfigurationError("FIELDSYNC_LOG_LEVEL: unknown level \"\(name)\"") }
            configuration.logLevel = level
        }
        return configuration
    }

    private static func parsePort(_ text: String) throws -> Int {
        guard let port = Int(text) else { throw ConfigurationError("--port must be a number, got \"\(text)\"") }
        return port
    }

    private static func loadDatabaseTimeouts(into timeouts: inout SessionTimeouts, _ environment: Environment) throws {
        let limits: [(String, WritableKeyPath<SessionTimeouts, Duration>)] = [
            ("FIELDSYNC_DB_STATEMENT_TIMEOUT_MS", \.statement), ("FIELDSYNC_DB_LOCK_TIMEOUT_MS", \.lock),
            ("FIELDSYNC_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", \.idleInTransaction),
        ]
        for (name, keyPath) in limits {
            guard let value = try environment.integer(name) else { continue }
            // PostgreSQL's own ceiling for these settings (INT_MAX milliseconds).
            guard (0...Int(Int32.max)).contains(value) else { throw ConfigurationError("\(name) must be 0-\(Int32.max), got \(value)") }
            timeouts[keyPath: keyPath] = .milliseconds(value)
        }
    }

    private static func positive(_ environment: Environment, _ name: String) throws -> Int? {
        guard let value = try environment.integer(name) else { return nil }
        guard value > 0 else { throw ConfigurationError("\(name) must be positive, got \(value)") }
        return value
    }

    /// The resources folder: `FIELDSYNC_RESOURCES`, else the first of the working
    /// directory and the executable's ancestors that holds `Migrations/`.
    static func locateResources(environment: Environment) throws -> URL {
        if let explicit = environment["FIELDSYNC_RESOURCES"] { return URL(fileURLWithPath: explicit) }
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory)
            directory.deleteLastPathComponent()
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("Migrations").path) {
            return candidate
        }
        throw ConfigurationError("cannot find the Migrations folder; set FIELDSYNC_RESOURCES to the FieldSync checkout or install folder")
    }
}
