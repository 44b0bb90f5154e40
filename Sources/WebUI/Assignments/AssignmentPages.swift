import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// The work the office sends to the field: `GET /admin/assignments` (assignments, jobs or
/// visits by field user or team), the "new assignment" form, and one record's form, which
/// edits an assignment or moves a job or visit to another field user or team.
///
/// Every save goes through `AssignmentDesk`, one push op of the signed-in user's back-office
/// device: the newly assigned devices pull the record, the previous assignee's devices pull
/// its removal, and the journal names the office user. The form carries the record's
/// `serverSeq` as `baseServerSeq`, so a change made by someone else since it was loaded comes
/// back as a conflict, told in words, instead of being overwritten.
struct AssignmentPages {
    let board: any AssignmentBoard
    let desk: AssignmentDesk
    let accounts: any AccountStore
    let schema: Schema
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.assignments.path
    static let newPath = path + "/new"

    static func path(of key: RecordKey) -> String {
        "\(path)/\(PathSegment.encode(key.collection))/\(PathSegment.encode(key.recordId))"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .assignments, handler: list)
        routes.add(.GET, Self.newPath, area: .assignments, handler: new)
        routes.add(.POST, Self.path, area: .assignments, handler: create)
        routes.add(.GET, "\(Self.path)/{collection}/{id}", area: .assignments, handler: show)
        routes.add(.POST, "\(Self.path)/{collection}/{id}", area: .assignments, handler: update)
    }

    /// Records per page of the list.
    static let pageSize = 100

    @Sendable func list(_ context: WebContext) throws -> Response {
        let query = context.request.query
        let collection = query["kind"].flatMap { AssignmentDesk.collections.contains($0) ? $0 : nil } ?? AssignmentDesk.assignments
        let team = (query["team"] ?? "").trimmingCharacters(in: .whitespaces)
        let person = (query["user"] ?? "").trimmingCharacters(in: .whitespaces)
        let pager = try Pager(query)
        var errors: [String: String] = [:]
        var assigneeId: String?
        if !person.isEmpty {
            assigneeId = try directory.user(person)?.id
            if assigneeId == nil { errors["user"] = "No user is named “\(person)” or has that id." }
        }
        let filter = AssignmentFilter(collection: collection, teamId: team.isEmpty ? nil : team, assigneeId: assigneeId)
        let page = errors.isEmpty ? try board.records(filter, after: pager.cursor, limit: Self.pageSize) : PageOf(rows: [], next: nil)
        let filters = [("kind", collection), ("team", team), ("user", person)].filter { !$0.1.isEmpty }
        let content: [String: TemplateValue] = [
            "kinds": .array(
                AssignmentDesk.collections.map { ["value": .string($0), "label": .string(Self.kindName($0)), "selected": .bool($0 == collection)] }),
            "kindName": .string(Self.kindName(collection).lowercased()), "team": .string(team), "user": .string(person),
            "errors": .dictionary(errors.mapValues(TemplateValue.string)), "filtered": .bool(!team.isEmpty || !person.isEmpty),
            "rows": .array(page.rows.map(row)), "hasRows": .bool(!page.rows.isEmpty), "newPath": .string(Self.newPath),
            "pager": pager.navigation(path: Self.path, filters: filters, count: page.rows.count, total: nil, next: page.next),
        ]
        var rendered = Page("pages/assignments", title: "Assignments", area: .assignments, session: context.session, content: content)
        rendered.status = errors.isEmpty ? 200 : 422
        return try renderer.render(rendered)
    }

    @Sendable func new(_ context: WebContext) throws -> Response {
        var form = AssignmentForm(full: true)
        form.status = statuses.first ?? ""
        return try page(form, record: nil, context: context)
    }

    @Sendable func create(_ context: WebContext) throws -> Response {
        var form = AssignmentForm(context.form, full: true)
        guard let fields = try form.validated(statuses: statuses, directory: directory) else {
            return try page(form, record: nil, context: context, status: 422)
        }
        let key = RecordKey(collection: AssignmentDesk.assignments, recordId: desk.newAssignmentId())
        return try save(AssignmentEdit(key: key, baseServerSeq: nil, fields: fields), form: form, record: nil, context: context)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let record = try target(context)
        let notice: Notice? =
            switch context.request.query["notice"] {
            case "created": Notice(kind: .success, text: "Assignment created. \(Self.deliveryNote)")
            case "saved": Notice(kind: .success, text: "Saved. \(Self.deliveryNote)")
            case "unchanged": Notice(kind: .info, text: "Nothing to save: every value already was as in the form.")
            default: nil
            }
        return try page(AssignmentForm(record), record: record, context: context, notice: notice)
    }

    @Sendable func update(_ context: WebContext) throws -> Response {
        let record = try target(context)
        var form = AssignmentForm(context.form, full: record.key.collection == AssignmentDesk.assignments)
        guard let base = form.baseServerSeq else {
            return try renderer.error(400, session: context.session, message: Self.damagedMessage)
        }
        guard let fields = try form.validated(statuses: statuses, directory: directory) else {
            return try page(form, record: record, context: context, status: 422)
        }
        return try save(AssignmentEdit(key: record.key, baseServerSeq: base, fields: fields), form: form, record: record, context: context)
    }

    // MARK: - Helpers

    static let deliveryNote =
        "The assigned devices receive it on their next sync; devices that no longer see it drop it then."
    static let damagedMessage =
        "This form is damaged or incomplete (its record version is missing), so nothing was changed. Open the record again and retry."

    private var statuses: [String] {
        schema.collections[AssignmentDesk.assignments]?.fields["status"]?.values ?? []
    }

    private var directory: AssignmentForm.Directory {
        AssignmentForm.Directory(
            user: { [accounts] text in try accounts.user(id: text) ?? accounts.credentials(username: text)?.user },
            teamExists: { [board] in try board.teamExists($0) })
    }

    /// Writes the edit and answers: back to the record on success, the form with the reason otherwise.
    private func save(_ edit: AssignmentEdit, form: AssignmentForm, record: AssignedRecord?, context: WebContext) throws -> Response {
        let notice: String
        switch try desk.save(edit, by: context.session.principal) {
        case .unchanged:
            notice = "unchanged"
        case .pushed(let result) where result.status == .applied:
            notice = record == nil ? "created" : "saved"
        case .pushed(let result):
            var form = form
            let answer = AssignmentOutcome(result, isCreate: record == nil)
            if let field = answer.field { form.reject(field, answer.text) }
            // The form keeps the typed values; its base moves to what is stored now, so saving
            // again is a deliberate choice over the other person's change.
            let current = try board.record(edit.key)
            if let current, !current.isDeleted { form.base = String(current.serverSeq) }
            return try page(form, record: record == nil ? nil : current ?? record, context: context, notice: Notice(kind: .error, text: answer.text), status: answer.status)
        }
        return .redirect(to: Self.path(of: edit.key) + "?notice=\(notice)")
    }

    /// The record the path names.
    /// - Throws: 404 for another collection or a record that never existed.
    private func target(_ context: WebContext) throws -> AssignedRecord {
        let collection = try context.request.parameter("collection")
        guard AssignmentDesk.collections.contains(collection),
            let record = try board.record(RecordKey(collection: collection, recordId: try context.request.parameter("id")))
        else { throw PageError.notFound }
        return record
    }

    static func kindName(_ collection: String) -> String {
        switch collection {
        case "jobs": "Jobs"
        case "visits": "Visits"
        default: "Assignments"
        }
    }

    /// What a record is called in lists: its title, else its site, else its id.
    private static func name(_ record: AssignedRecord) -> String {
        record.payload["title"]?.stringValue ?? record.payload["siteId"]?.stringValue ?? record.key.recordId
    }

    private func row(_ record: AssignedRecord) -> TemplateValue {
        [
            "path": .string(Self.path(of: record.key)), "name": .string(Self.name(record)), "recordId": .string(record.key.recordId),
            "status": record.payload["status"]?.stringValue.map(TemplateValue.string) ?? .null,
            "assignee": (record.assigneeName ?? record.assigneeId).map(TemplateValue.string) ?? .null,
            "team": record.teamId.map(TemplateValue.string) ?? .null,
            "due": record.payload["dueDate"]?.stringValue.map(TemplateValue.string) ?? .null,
            "updated": .string(Formatting.dateTime(record.updatedAt, in: configuration.timeZone)),
        ]
    }

    private func page(
        _ form: AssignmentForm, record: AssignedRecord?, context: WebContext, notice: Notice? = nil, status: Int = 200
    ) throws -> Response {
        let title = record.map { "\(Self.kindName($0.key.collection).dropLast()) \($0.key.recordId)" } ?? "New assignment"
        var content: [String: TemplateValue] = [
            "heading": .string(title), "full": .bool(form.full), "isNew": .bool(record == nil),
            "action": .string(record.map { Self.path(of: $0.key) } ?? Self.path),
            "form": [
                "title": .string(form.title), "siteId": .string(form.siteId), "dueDate": .string(form.dueDate), "assignee": .string(form.assignee),
                "team": .string(form.team), "baseServerSeq": .string(form.base),
                "statuses": .array(statuses.map { ["value": .string($0), "selected": .bool($0 == form.status)] }),
                "errors": .dictionary(form.errors.mapValues(TemplateValue.string)),
            ],
        ]
        if let record {
            content["record"] = [
                "collection": .string(record.key.collection), "kind": .string(Self.kindName(record.key.collection)),
                "kindPath": .string(Self.path + "?kind=" + record.key.collection), "recordId": .string(record.key.recordId),
                "name": .string(Self.name(record)), "serverSeq": .string(String(record.serverSeq)),
                "status": record.payload["status"]?.stringValue.map(TemplateValue.string) ?? .null,
                "historyPath": .string(SyncCentrePages.recordPath(record.key.collection, record.key.recordId)),
                "deleted": .bool(record.isDeleted),
            ]
        }
        var page = Page("pages/assignment", title: title, area: .assignments, session: context.session, content: content, status: status)
        page.notice = notice
        return try renderer.render(page)
    }
}

extension Area {
    /// `/admin/assignments`: the work sent to the field, for the people who send it.
    public static let assignments = Area(
        path: "/admin/assignments", title: "Assignments", access: [.admin: .manage, .dispatcher: .manage])
}

extension BackOfficePages {
    /// Adds the assignment pages: the list, the "new assignment" form and one record's form.
    public func addAssignmentPages(board: any AssignmentBoard, desk: AssignmentDesk, accounts: any AccountStore, schema: Schema) {
        AssignmentPages(board: board, desk: desk, accounts: accounts, schema: schema, renderer: renderer, configuration: configuration)
            .register(on: self)
    }
}
