import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin/jobs`: every background job with its schedule, its latest runs (outcome,
/// duration, counts, progress while running) and its next run; `POST /admin/jobs/{name}/run`
/// asks the worker for a run now, recorded in the run history as asked for by the admin.
/// Opening the page acknowledges failed runs (the dashboard stops flagging them).
struct JobsPages {
    let control: any JobControl
    let runs: any JobRunStore
    let settings: any SettingsStore
    let renderer: PageRenderer
    let configuration: WebConfiguration
    /// Runs listed per job.
    static let runsShown = 5

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Area.jobs.path, area: .jobs, handler: show)
        routes.add(.POST, Area.jobs.path + "/{name}/run", area: .jobs, handler: runNow)
        registerRuns(on: routes)
    }

    /// Opening the page acknowledges every failed or interrupted run: the admin sees them here.
    @Sendable func show(_ context: WebContext) throws -> Response {
        try runs.acknowledgeFailures(by: context.session.user.id, runs: nil)
        let now = configuration.now()
        let jobs = try control.jobs(in: try settings.current()).map { try job($0, now: now) }
        var page = Page("pages/jobs", title: "Jobs", area: .jobs, session: context.session, content: ["jobs": .array(jobs)])
        page.notice = notice(context.request.query)
        return try renderer.render(page)
    }

    @Sendable func runNow(_ context: WebContext) throws -> Response {
        let name = try context.request.parameter("name")
        switch control.requestRun(of: name, by: context.session.user.id) {
        case .unknownJob: throw PageError.notFound
        case .queued: return .redirect(to: Area.jobs.path + "?notice=queued&job=" + Self.queryValue(name))
        case .noWorker: return .redirect(to: Area.jobs.path + "?notice=no-worker&job=" + Self.queryValue(name))
        }
    }

    private func notice(_ query: [String: String]) -> Notice? {
        guard let job = query["job"] else { return nil }
        return switch query["notice"] {
        case "queued": Notice(kind: .success, text: "\(job) starts now. Reload to see its run; once listed, its progress moves on its own.")
        case "no-worker":
            Notice(kind: .error, text: "This server runs without the background worker. Run `fieldsync worker --once --job \(job)` instead.")
        default: nil
        }
    }

    private func job(_ job: JobDescription, now: Date) throws -> TemplateValue {
        let recent = try runs.recent(job: job.name, limit: Self.runsShown)
        let running = recent.first { $0.outcome == .running }
        let next: String
        if running != nil {
            next = "Running now"
        } else {
            let due = job.schedule.nextRun(after: recent.first?.startedAt, now: now)
            next = due <= now ? "At the worker's next look" : Formatting.dateTime(due, in: configuration.timeZone)
        }
        return [
            "name": .string(job.name), "summary": .string(job.summary), "schedule": .string(Self.every(job.schedule)), "next": .string(next),
            "runs": .array(recent.map { run($0, now: now) }), "hasRuns": .bool(!recent.isEmpty),
        ]
    }

    private func run(_ run: JobRun, now: Date) -> TemplateValue {
        var values: [String: TemplateValue] = [
            "started": .string(Formatting.dateTime(run.startedAt, in: configuration.timeZone)),
            "by": .string(run.requestedBy == nil ? "Schedule" : run.requestedByName ?? "An admin"),
            "outcome": .string(run.outcome.rawValue), "outcomeLabel": .string(run.outcome.rawValue.capitalized),
            "duration": .string(Self.duration(run.duration(now: now))),
            "counts": .string(run.counts.sorted { $0.key < $1.key }.map { "\($0.key) \(Formatting.count($0.value))" }.joined(separator: ", ")),
            "error": run.error.map(TemplateValue.string) ?? .null,
        ]
        if run.outcome == .running {
            values["progress"] = [
                "done": .int(run.done), "total": run.total.map { .int($0) } ?? .null, "text": .string(Self.progressText(run)),
                "path": .string(Area.jobs.path + "/runs/\(run.id)"),
            ]
        }
        return .dictionary(values)
    }

    static func every(_ schedule: JobSchedule) -> String {
        let minutes = Int(schedule.interval / 60)
        return minutes == 1 ? "Every minute" : "Every \(minutes) minutes"
    }

    static func duration(_ seconds: TimeInterval) -> String {
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds)
        return "\(whole / 60) min \(whole % 60) s"
    }

    private static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_."))) ?? ""
    }
}

extension Area {
    /// `/admin/jobs`: the background jobs, their runs, and "Run now".
    public static let jobs = Area(path: "/admin/jobs", title: "Jobs", access: [.admin: .manage])
}

extension BackOfficePages {
    /// Adds the jobs page and its "Run now".
    public func addJobsPages(control: any JobControl, runs: any JobRunStore, settings: any SettingsStore) {
        JobsPages(control: control, runs: runs, settings: settings, renderer: renderer, configuration: configuration).register(on: self)
    }
}
