import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin/team`: a team's members with their records, ops and last sync. Supervisors
/// see their own team; administrators pick any team with `?team=`.
struct TeamPage {
    let rollups: any TeamRollupStore
    let charts: ActivityCharts
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.teamRollup.path

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .teamRollup, handler: show)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let user = context.session.user
        let isSupervisor = user.role == .supervisor
        let teams = isSupervisor ? [] : try rollups.teams()
        let team = isSupervisor ? user.teamId : ConflictPages.filter(context.request.query["team"]) ?? teams.first
        let members = try team.map(rollups.rollup) ?? []
        var content: [String: TemplateValue] = [
            "team": team.map(TemplateValue.string) ?? .null, "canPick": .bool(!isSupervisor && !teams.isEmpty),
            "teams": .array(teams.map { ["value": .string($0), "selected": .bool($0 == team)] }),
            "members": .array(members.map(row)), "hasMembers": .bool(!members.isEmpty), "noTeam": .bool(isSupervisor && team == nil),
            "totals": totals(members),
        ]
        if let team { content["outcomesChart"] = try charts.dailyOutcomes(teamId: team) }
        return try renderer.render(Page("pages/team", title: "Team", area: .teamRollup, session: context.session, content: content))
    }

    private func row(_ member: MemberRollup) -> TemplateValue {
        [
            "username": .string(member.username), "role": .string(Formatting.roleName(member.role)), "roleKey": .string(member.role.rawValue),
            "suspended": .bool(member.suspended), "records": .int(member.activeRecords), "inReview": .int(member.recordsInReview),
            "deleted": member.deletedRecords > 0 ? .int(member.deletedRecords) : .null, "applied": .int(member.opsApplied),
            "deferred": .int(member.opsDeferred),
            "rejected": .int(member.opsRejected), "conflict": .int(member.opsConflict), "openConflicts": .int(member.openConflicts),
            "devices": .string(Formatting.counted(member.devices, "device")),
            "lastSync": member.lastSyncAt.map { .string(Formatting.dateTime($0, in: configuration.timeZone)) } ?? .null,
        ]
    }

    /// The team's figures summed, for the cards above the table.
    private func totals(_ members: [MemberRollup]) -> TemplateValue {
        func sum(_ value: (MemberRollup) -> Int) -> TemplateValue { .string(Formatting.count(members.reduce(0) { $0 + value($1) })) }
        return [
            "records": sum(\.activeRecords), "inReview": sum(\.recordsInReview), "deferred": sum(\.opsDeferred),
            "rejected": sum(\.opsRejected), "openConflicts": sum(\.openConflicts),
        ]
    }
}

extension Area {
    /// `/admin/team`: a team's members and their figures.
    public static let teamRollup = Area(path: "/admin/team", title: "Team", access: [.admin: .view, .supervisor: .view])
}

extension BackOfficePages {
    /// Adds the team roll-up page.
    public func addTeamPage(rollups: any TeamRollupStore, activity: any ActivityStore) {
        TeamPage(
            rollups: rollups, charts: ActivityCharts(store: activity, configuration: configuration), renderer: renderer, configuration: configuration
        )
        .register(on: self)
    }
}
