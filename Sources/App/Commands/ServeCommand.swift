import Foundation
import Support
import Synchronization
import Worker

/// `fieldsync serve`: runs the HTTP server until SIGINT or SIGTERM.
struct ServeCommand: Command {
    let path = ["serve"]
    let summary = "run the server (embedded PostgreSQL unless DATABASE_URL is set)"
    let valueOptions = AppConfiguration.valueOptions
    let flagOptions: Set<String> = ["help", "no-worker", "demo"]
    let usage = """
        Usage: fieldsync serve [--host 127.0.0.1] [--port 8080] [--data-dir ./.fieldsync] [--no-worker] [--demo]

        Runs the sync API and back-office. Without DATABASE_URL it creates (first run) or
        reuses a private PostgreSQL cluster under the data folder, starts it again if it
        dies, and stops it on exit. If it cannot be started again, serve exits with status 1
        saying why, for a service manager to restart it.
        On first start with no users it creates `admin` and prints its password once
        (or uses FIELDSYNC_ADMIN_PASSWORD). SIGINT/SIGTERM stop it gracefully.

        Options:
          --host ADDRESS     address to bind (default 127.0.0.1, env FIELDSYNC_HOST)
          --port PORT        port to bind, 0 for any free port (default 8080, env FIELDSYNC_PORT)
          --no-worker        do not run background jobs here (run `fieldsync worker` elsewhere)
          --demo             also create demo teams and users (demo-ana, demo-dispatch, …) and run a
                             small simulated fleet (fieldsync-tools, beside this executable) that
                             fills the dashboard, sync centre, conflicts, orders and live feed; never
                             on unless given
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let configuration = try AppConfiguration.load(arguments: arguments, environment: environment)
        let logger = Logger(label: "fieldsync", level: configuration.logLevel)
        let signal = ShutdownSignal()
        let databaseLost = Mutex<String?>(nil)
        let application = try Application.start(configuration, logger: logger) { reason in
            databaseLost.withLock { $0 = reason }
            signal.trigger()
        }
        let demo: DemoFleet?
        do {
            demo = arguments.has("demo") ? try DemoFleet.start(application, logger: logger) : nil
        } catch {
            application.shutdown()
            throw error
        }
        // Under a service manager standard output is a pipe or a file, which C buffers in
        // blocks: without this the one-time admin password would only appear at exit.
        fflush(nil)
        signal.wait()
        demo?.stop()
        application.shutdown()
        guard let reason = databaseLost.withLock({ $0 }) else { return 0 }
        logger.error("FieldSync stopped: \(reason)")
        return 1
    }
}

/// `fieldsync worker`: runs the background jobs (retention) without serving HTTP.
struct WorkerCommand: Command {
    let path = ["worker"]
    let summary = "run background jobs only (retention, expired upload sessions)"
    let valueOptions: Set<String> = ["data-dir"]
    let flagOptions: Set<String> = ["help", "once"]
    let usage = """
        Usage: fieldsync worker [--once] [--data-dir ./.fieldsync]

        Runs the background jobs every FIELDSYNC_WORKER_INTERVAL seconds (default 600) until
        SIGINT/SIGTERM, or a single pass with --once (for cron). Each job holds a PostgreSQL
        advisory lock while it runs, so several workers never run the same job at once.
        Jobs: retention — deletes op results and idempotency keys older than the op-result
        retention (at least 30 days), tombstones and scope exits older than the tombstone
        retention, and live events older than a day; upload-sessions — deletes upload
        sessions inactive for longer than the upload-session window, with their chunks.

        Options:
          --once             one pass, then exit
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        try CommandDatabase.with(arguments, environment) { core in
            let worker = Application.worker(core, try Application.features(core))
            if arguments.has("once") {
                worker.runOnce()
            } else {
                // Settings changed elsewhere (retention windows) reach this process too.
                let services = ServiceGroup([core.notifications, worker], logger: core.logger)
                let signal = ShutdownSignal()
                try services.start()
                signal.wait()
                services.stop()
            }
        }
        return 0
    }
}

/// `fieldsync migrate`: applies pending database migrations and exits.
struct MigrateCommand: Command {
    let path = ["migrate"]
    let summary = "apply pending database migrations"
    let valueOptions: Set<String> = ["data-dir"]
    let usage = """
        Usage: fieldsync migrate [--data-dir ./.fieldsync]

        Applies the migrations in Migrations/ that the database has not seen, each in its own
        transaction, under an advisory lock (safe while other instances start). `serve`
        does this by itself; this command is for deployments that migrate first.

        Options:
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        try CommandDatabase.with(arguments, environment) { _ in
            print("Database schema is up to date.")
        }
        return 0
    }
}

/// Opens the database a command works on (the running embedded cluster, a newly
/// started one, or `DATABASE_URL`), migrates it, and closes it afterwards.
enum CommandDatabase {
    static func with<T>(
        _ arguments: CommandLineArguments, _ environment: Environment, _ body: (Core) throws -> T
    ) throws -> T {
        var configuration = try AppConfiguration.load(arguments: arguments, environment: environment)
        configuration.databasePoolSize = 2
        let logger = Logger(label: "fieldsync", level: configuration.logLevel > .warning ? configuration.logLevel : .warning)
        let database = try DatabaseHost.open(configuration, logger: logger)
        defer { try? database.close() }
        let core = try Core.open(configuration, database: database.configuration, logger: logger)
        defer { core.close() }
        return try body(core)
    }
}
