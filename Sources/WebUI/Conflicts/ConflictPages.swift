import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// The review queue: `GET /admin/conflicts` (open conflicts, oldest first, filtered by
/// collection and team), one conflict's page with both revisions side by side, and its
/// resolution: keep the server's version, take the device's, or choose field by field.
struct ConflictPages {
    let conflicts: any ConflictStore
    let changes: ServerChangeService
    let photos: RecordPhotos
    let charts: ActivityCharts
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.conflicts.path

    static func path(of id: String) -> String {
        "\(path)/\(PathSegment.encode(id))"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .conflicts, handler: list)
        routes.add(.GET, "\(Self.path)/{id}", area: .conflicts, handler: show)
        routes.add(.POST, "\(Self.path)/{id}/resolve", area: .conflicts, handler: resolve)
    }

    /// Conflicts per page of the queue.
    static let pageSize = 100

    @Sendable func list(_ context: WebContext) throws -> Response {
        let collection = Self.filter(context.request.query["collection"])
        let team = Self.filter(context.request.query["team"])
        let pager = try Pager(context.request.query)
        let result = try conflicts.openConflicts(collection: collection, teamId: team, after: pager.cursor, limit: Self.pageSize)
        let filters = [("collection", collection), ("team", team)].compactMap { name, value in value.map { (name, $0) } }
        let content: [String: TemplateValue] = [
            "conflicts": .array(result.conflicts.map(row)), "hasConflicts": .bool(!result.conflicts.isEmpty),
            "heading": .string(Formatting.counted(result.matching, filters.isEmpty ? "open conflict" : "matching conflict")),
            "totalOpen": .string(Formatting.count(result.totalOpen)),
            "ageChart": try charts.openConflicts(teamId: team), "chartTeam": team.map(TemplateValue.string) ?? .null,
            "filtered": .bool(!filters.isEmpty),
            "collections": .array(
                result.collectionCounts.map { facet in
                    ["value": .string(facet.collection), "count": .int(facet.count), "selected": .bool(facet.collection == collection)]
                }),
            "teams": .array(result.teams.map { ["value": .string($0), "selected": .bool($0 == team)] }),
            "pager": pager.navigation(path: Self.path, filters: filters, count: result.conflicts.count, total: result.matching, next: result.next),
        ]
        return try renderer.render(Page("pages/conflicts", title: "Conflicts", area: .conflicts, session: context.session, content: content))
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let conflict = try target(context)
        let notice: Notice? =
            context.request.query["notice"] == "resolved" && conflict.entry.state == .resolved
            ? Notice(kind: .success, text: "Conflict resolved. Devices receive the result on their next sync.") : nil
        return try page(conflict, context: context, notice: notice)
    }

    @Sendable func resolve(_ context: WebContext) throws -> Response {
        let conflict = try target(context)
        let request: ResolveRequest
        switch ConflictComparison(conflict.entry).request(from: context.form) {
        case .success(let chosen): request = chosen
        case .failure(let problem): return try page(conflict, context: context, notice: Notice(kind: .error, text: problem.text), status: 422)
        }
        do {
            _ = try changes.resolveConflict(conflict.entry.id, request, by: context.session.principal)
        } catch let error as SyncError {
            let refused = Self.refusal(error)
            return try page(try target(context), context: context, notice: Notice(kind: .error, text: refused.text), status: refused.status)
        }
        return .redirect(to: Self.path(of: conflict.entry.id) + "?notice=resolved")
    }

    // MARK: - Helpers

    /// A filter value from the query; "" (the "All" option) means no filter.
    static func filter(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    /// What to tell the person when the engine refused the resolution.
    static func refusal(_ error: SyncError) -> (text: String, status: Int) {
        switch error.code {
        case .conflictAlreadyResolved:
            ("Someone else resolved this conflict a moment ago. Their decision is shown below; nothing else was changed.", 409)
        case .recordDeleted:
            ("The record was deleted in the meantime, so only “Keep server version” can close this conflict.", 409)
        default:
            ("The server could not apply these values, so nothing was changed. \(error.message)", 422)
        }
    }

    /// The conflict the path names.
    /// - Throws: 404 when there is none.
    private func target(_ context: WebContext) throws -> NamedConflict {
        guard let conflict = try conflicts.conflict(id: try context.request.parameter("id")) else { throw PageError.notFound }
        return conflict
    }

    private func row(_ conflict: NamedConflict) -> TemplateValue {
        let entry = conflict.entry
        return [
            "path": .string(Self.path(of: entry.id)), "collection": .string(entry.collection), "recordId": .string(entry.recordId),
            "author": .string(conflict.authorName ?? entry.authorId), "deviceId": .string(entry.deviceId),
            "team": conflict.teamId.map(TemplateValue.string) ?? .null, "opened": .string(opened(entry)),
            "fields": .string(entry.fields.map(\.field).joined(separator: ", ")),
        ]
    }

    private func opened(_ entry: ConflictEntry) -> String {
        Formatting.dateTime(rfc3339: entry.openedAt, in: configuration.timeZone)
    }

    private func page(_ conflict: NamedConflict, context: WebContext, notice: Notice? = nil, status: Int = 200) throws -> Response {
        let entry = conflict.entry
        let comparison = ConflictComparison(entry)
        let album = try photos.album(for: RecordKey(collection: entry.collection, recordId: entry.recordId))
        var content: [String: TemplateValue] = [
            "id": .string(entry.id), "collection": .string(entry.collection), "recordId": .string(entry.recordId),
            "historyPath": .string(SyncCentrePages.recordPath(entry.collection, entry.recordId)),
            "devicePath": .string(SyncCentrePages.devicePath(entry.deviceId)),
            "author": .string(conflict.authorName ?? entry.authorId), "deviceId": .string(entry.deviceId), "opId": .string(entry.opId),
            "team": conflict.teamId.map(TemplateValue.string) ?? .null, "opened": .string(opened(entry)),
            "open": .bool(entry.state == .open), "resolvePath": .string(Self.path(of: entry.id) + "/resolve"),
            "rows": comparison.templateRows(album), "conflictFields": .string(Formatting.counted(entry.fields.count, "field")),
        ]
        if let resolution = entry.resolution {
            content["resolution"] = [
                "choice": .string(ConflictComparison.choiceText(resolution.choice)), "by": .string(conflict.resolverName ?? resolution.by),
                "at": .string(Formatting.dateTime(rfc3339: resolution.at, in: configuration.timeZone)),
                "serverSeq": .string(String(resolution.serverSeq)),
            ]
        }
        var page = Page(
            "pages/conflict", title: "Conflict on \(entry.recordId)", area: .conflicts, session: context.session, content: content, status: status)
        page.notice = notice
        return try renderer.render(page)
    }
}

extension Area {
    /// `/admin/conflicts`: the open conflicts people decide.
    public static let conflicts = Area(path: "/admin/conflicts", title: "Conflicts", access: [.admin: .manage, .dispatcher: .manage])
}

extension BackOfficePages {
    /// Adds the conflict pages: the open conflicts, one conflict, its resolution.
    public func addConflictPages(conflicts: any ConflictStore, changes: ServerChangeService, photos: RecordPhotos, activity: any ActivityStore) {
        ConflictPages(
            conflicts: conflicts, changes: changes, photos: photos, charts: ActivityCharts(store: activity, configuration: configuration),
            renderer: renderer, configuration: configuration
        ).register(on: self)
    }
}
