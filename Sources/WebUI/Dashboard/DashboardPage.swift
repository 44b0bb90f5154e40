import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin`: what needs attention now, counted for the whole server or, for a
/// supervisor, for their team; for admins, job runs that failed since one of them last looked.
struct DashboardPage {
    let dashboard: any DashboardStore
    let settings: any SettingsStore
    let jobRuns: any JobRunStore
    let charts: ActivityCharts
    let renderer: PageRenderer
    let configuration: WebConfiguration

    /// One figure on the dashboard.
    struct Card {
        let label: String
        let value: Int
        let hint: String
        /// Where the card leads, when the viewer may open that page and it exists.
        let area: Area
        var path: String?
        /// Whether a non-zero value means someone should act.
        var urgent = false
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Area.dashboard.path, area: .dashboard, handler: show)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let user = context.session.user
        let scope = TeamScope(context.session)
        let current = try settings.current()
        var content: [String: TemplateValue] = [
            "banners": .array(try failedRunsBanner(for: user.role) + banners(current, for: user.role)), "gate": gate(current, for: user.role),
            "liveFeedPath": .string(Area.liveEvents.path),
            "liveFeedLinks": .string(LiveFeedLinks.json(for: user.role, isAvailable: renderer.isAvailable)),
            "scope": .string(scope.label),
        ]
        if scope.blocked {
            content["noTeam"] = true
        } else {
            let startOfDay = Formatting.startOfDay(configuration.now(), in: configuration.timeZone)
            let counts = try dashboard.counts(teamId: scope.teamId, startOfDay: startOfDay)
            content["cards"] = .array(cards(counts, for: user.role).map { value($0, for: user.role) })
            content["outcomesChart"] = try charts.dailyOutcomes(teamId: scope.teamId)
        }
        return try renderer.render(Page("pages/dashboard", title: "Dashboard", area: .dashboard, session: context.session, content: content))
    }

    /// The cards a role sees, most urgent first.
    func cards(_ counts: DashboardCounts, for role: Role) -> [Card] {
        var cards: [Card] = []
        if AccessPolicy.permits(role, .view, in: .orders) {
            cards.append(
                Card(
                    label: "Orders to confirm", value: counts.ordersSubmitted, hint: "Submitted and waiting for a dispatcher", area: .orders,
                    urgent: true))
        }
        cards.append(
            Card(label: "Open conflicts", value: counts.openConflicts, hint: "Changes that need a person to decide", area: .conflicts, urgent: true))
        cards.append(
            Card(
                label: "Ops waiting", value: counts.opsDeferred, hint: "Held until an earlier change or a photo arrives", area: .syncCentre,
                urgent: true))
        cards.append(Card(label: "Devices synced today", value: counts.devicesSyncedToday, hint: "Since midnight", area: .syncCentre))
        if AccessPolicy.permits(role, .view, in: .users) {
            cards.append(
                Card(
                    label: "Signed-in devices", value: counts.devicesWithTokens, hint: "Holding a valid sign-in token", area: .users,
                    path: DevicePages.path))
            cards.append(Card(label: "Active users", value: counts.activeUsers, hint: "Accounts that are not suspended", area: .users))
        }
        return cards
    }

    private func value(_ card: Card, for role: Role) -> TemplateValue {
        let reachable = renderer.isAvailable(card.area) && AccessPolicy.permits(role, .view, in: card.area)
        return [
            "label": .string(card.label), "value": .string(Formatting.count(card.value)), "hint": .string(card.hint),
            "path": reachable ? .string(card.path ?? card.area.path) : .null,
            "attention": .bool(card.urgent && card.value > 0),
        ]
    }

    /// The settings that decide which devices may sync.
    private func gate(_ current: ServerSettings, for role: Role) -> TemplateValue {
        [
            "minimum": .string(current.minSupportedAppVersion), "hard": .string(current.hardMinimumAppVersion ?? "Not set"),
            "maintenance": .string(current.maintenanceMode ? "On" : "Off"), "path": settingsPath(for: role),
        ]
    }

    private func settingsPath(for role: Role) -> TemplateValue {
        AccessPolicy.permits(role, .view, in: .settings) ? .string(Area.settings.path) : .null
    }

    /// Failed or interrupted job runs no admin has looked at, for those who may open the jobs page.
    private func failedRunsBanner(for role: Role) throws -> [TemplateValue] {
        guard renderer.isAvailable(.jobs), AccessPolicy.permits(role, .manage, in: .jobs) else { return [] }
        let failed = try jobRuns.unacknowledgedFailures(limit: JobsPages.seenLimit)
        guard !failed.isEmpty else { return [] }
        var jobs: [String] = []
        for run in failed where !jobs.contains(run.job) { jobs.append(run.job) }
        let count = failed.count == JobsPages.seenLimit ? "\(JobsPages.seenLimit) or more" : Formatting.count(failed.count)
        return [
            [
                "title": .string(
                    failed.count > 1
                        ? "\(count) job runs failed or were interrupted."
                        : "A job run \(failed[0].outcome == .failed ? "failed" : "was interrupted")."),
                "text": .string("Jobs: \(jobs.joined(separator: ", ")). This stays here until an admin opens the jobs page."),
                "path": .string(Area.jobs.path), "link": "Open jobs",
                "acknowledge": ["action": .string(Area.jobs.path + "/seen"), "runs": .string(failed.map { String($0.id) }.joined(separator: ","))],
            ]
        ]
    }

    /// Warnings about settings that change how devices sync right now.
    private func banners(_ current: ServerSettings, for role: Role) -> [TemplateValue] {
        let settingsPath = settingsPath(for: role)
        var banners: [TemplateValue] = []
        if current.maintenanceMode {
            banners.append([
                "title": "Maintenance mode is on.",
                "text": "Devices are not syncing; their work stays queued on the devices until maintenance ends.",
                "path": settingsPath, "link": "Review settings",
            ])
        }
        if let floor = current.hardMinimumAppVersion {
            banners.append([
                "title": .string("Apps below \(floor) are refused."),
                "text": "Devices running an older app cannot upload their queued work until they are updated.",
                "path": settingsPath, "link": "Review settings",
            ])
        }
        return banners
    }
}

extension Area {
    /// `/admin`: what needs attention now.
    public static let dashboard = Area(path: "/admin", title: "Dashboard", access: [.admin: .view, .dispatcher: .view, .supervisor: .view])
}

extension BackOfficePages {
    /// Adds the dashboard.
    public func addDashboard(counts: any DashboardStore, settings: any SettingsStore, jobRuns: any JobRunStore, activity: any ActivityStore) {
        DashboardPage(
            dashboard: counts, settings: settings, jobRuns: jobRuns, charts: ActivityCharts(store: activity, configuration: configuration),
            renderer: renderer, configuration: configuration
        ).register(on: self)
    }
}
