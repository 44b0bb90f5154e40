import Foundation
import Support
import SyncEngine
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

/// `fieldsync worker`: runs the background jobs without serving HTTP.
struct WorkerCommand: Command {
    let path = ["worker"]
    let summary = "run background jobs only (retention, sweeps, live feed outbox)"
    let valueOptions: Set<String> = ["data-dir", "job"]
    let flagOptions: Set<String> = ["help", "once"]
    let usage = """
        Usage: fieldsync worker [--once [--job NAME]] [--data-dir ./.fieldsync]

        Runs each background job when its schedule says it is due (the "Background jobs"
        settings: minutes between runs, counted from the latest run on any instance), looking
        every FIELDSYNC_WORKER_INTERVAL seconds (default 60), until SIGINT/SIGTERM. With --once
        it runs every job (or only --job NAME) at once, whatever the schedule, and exits; the
        exit status is 1 if a job failed or another process was running it.
        Each job holds a PostgreSQL advisory lock while it runs, so several workers (and
        `serve`) never run the same job at once, and each run is recorded in job_runs with its
        progress, counts and outcome. Jobs work in batches committed one by one: a run stopped
        by a crash is marked interrupted and the next one carries on with what is left.

        Jobs:
          retention          deletes op results and idempotency keys older than the op-result
                             retention (at least 30 days), tombstones and scope exits older than
                             the tombstone retention, expired back-office sessions, and device
                             tokens that expired before the op-result retention
          sweeps             deletes upload sessions inactive for longer than the upload-session
                             window (at least 72 hours) with their chunks, request spools
                             unchanged for a day, and blob files no attachment uses (after a day)
          live-feed-outbox   deletes live events older than a day
          record-migration   upgrades stored records of an older schema version with the
                             schema's declared migration steps, in batches

        Options:
          --once             run the jobs once, now, then exit
          --job NAME         with --once: only this job
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        if arguments.value("job") != nil, !arguments.has("once") { throw CommandError("--job needs --once") }
        return try CommandDatabase.with(arguments, environment) { core in
            let worker = Application.worker(core, try Application.features(core))
            if arguments.has("once") { return try Self.once(worker, job: arguments.value("job")) }
            // Settings changed elsewhere (retention windows, schedules) reach this process too.
            let services = ServiceGroup([core.notifications, worker], logger: core.logger)
            let signal = ShutdownSignal()
            try services.start()
            signal.wait()
            services.stop()
            return 0
        }
    }

    /// Runs every job, or the named one, now; prints one line per job.
    private static func once(_ worker: Worker, job name: String?) throws -> Int32 {
        var selected: [any Job]?
        if let name {
            guard let job = worker.job(named: name) else {
                throw CommandError("no job named \(name); jobs: \(worker.jobs.map(\.name).joined(separator: ", "))")
            }
            selected = [job]
        }
        var status: Int32 = 0
        for (job, result) in worker.runNow(selected) {
            switch result {
            case .ran(let id, .succeeded): print("\(job): succeeded (run \(id))")
            case .ran(let id, let outcome):
                print("\(job): \(outcome.rawValue) (run \(id))")
                status = 1
            case .busy:
                print("\(job): skipped, another process is running it")
                status = 1
            case .notDue, nil:
                print("\(job): not run (see the log)")
                status = 1
            }
        }
        return status
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
