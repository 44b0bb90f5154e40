import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// The sync centre: `GET /admin/sync` (devices with their app version and how their ops
/// ended), a device's journal (also as CSV or JSON) and a record's history.
///
/// Supervisors see it read-only and only for their own team's devices and records.
struct SyncCentrePages {
    let store: any SyncCentreStore
    let settings: any SettingsStore
    let photos: RecordPhotos
    let charts: ActivityCharts
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.syncCentre.path

    static func devicePath(_ deviceId: String) -> String {
        "\(path)/devices/\(PathSegment.encode(deviceId))"
    }

    static func recordPath(_ collection: String, _ recordId: String) -> String {
        "\(path)/records/\(PathSegment.encode(collection))/\(PathSegment.encode(recordId))"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .syncCentre, handler: list)
        routes.add(.GET, "\(Self.path)/devices/{deviceId}", area: .syncCentre, handler: journal)
        routes.add(.GET, "\(Self.path)/records/{collection}/{recordId}", area: .syncCentre, handler: history)
    }

    /// Rows per page of the device list, a journal and a record history.
    static let pageSize = 200

    @Sendable func list(_ context: WebContext) throws -> Response {
        let scope = TeamScope(context.session)
        let pager = try Pager(context.request.query)
        let current = try settings.current()
        let minimum = AppVersion(current.minSupportedAppVersion)
        let page = scope.blocked ? PageOf(rows: [], next: nil) : try store.devices(teamId: scope.teamId, after: pager.cursor, limit: Self.pageSize)
        let versions = scope.blocked ? [] : try store.appVersionCounts(teamId: scope.teamId)
        let content: [String: TemplateValue] = [
            "syncAgeChart": scope.blocked ? .null : try charts.syncAges(teamId: scope.teamId),
            "devices": .array(page.rows.map { row($0, minimum: minimum) }), "hasDevices": .bool(!page.rows.isEmpty),
            "scope": .string(scope.label), "noTeam": .bool(scope.blocked), "minimum": .string(minimum?.description ?? "not set"),
            "horizon": .string(JournalHorizon(settings: current).summary(timeZone: configuration.timeZone)),
            "belowText": belowText(versions.filter { Self.isBelow($0.version, minimum) }.reduce(0) { $0 + $1.count }),
            "pager": pager.navigation(
                path: Self.path, filters: [], count: page.rows.count, total: versions.reduce(0) { $0 + $1.count }, next: page.next),
        ]
        return try renderer.render(Page("pages/sync", title: "Sync centre", area: .syncCentre, session: context.session, content: content))
    }

    @Sendable func journal(_ context: WebContext) throws -> Response {
        let device = try targetDevice(context)
        let status = try Self.statusFilter(context.request.query["status"])
        if let format = context.request.query["format"], !["", "html"].contains(format) {
            guard let format = JournalExport.Format(rawValue: format) else { throw PageError.notFound }
            return try export(format, device: device, teamId: TeamScope(context.session).teamId, status: status)
        }
        let pager = try Pager(context.request.query)
        let teamId = TeamScope(context.session).teamId
        let page = try store.journal(deviceId: device.deviceId, teamId: teamId, status: status, after: pager.cursor, limit: Self.pageSize)
        let current = try settings.current()
        let minimum = AppVersion(current.minSupportedAppVersion)
        let base = Self.devicePath(device.deviceId)
        let filter = status.map { [("status", $0.rawValue)] } ?? []
        let exportQuery = filter.isEmpty ? "" : "&" + SafeRedirect.encodeQuery(filter)
        let content: [String: TemplateValue] = [
            "device": row(device, minimum: minimum),
            "horizon": .string(JournalHorizon(settings: current).text(firstSeen: device.firstSeenAt, timeZone: configuration.timeZone)),
            "entries": .array(page.rows.map { JournalRow($0, timeZone: configuration.timeZone).templateValue }),
            "hasEntries": .bool(!page.rows.isEmpty), "filters": .array(Self.statusFilters(base: base, current: status)),
            "filtered": .bool(status != nil), "showRecord": true,
            "csvPath": .string(base + "?format=csv" + exportQuery), "jsonPath": .string(base + "?format=json" + exportQuery),
            "pager": pager.navigation(path: base, filters: filter, count: page.rows.count, total: Self.opCount(device, status), next: page.next),
        ]
        return try renderer.render(
            Page("pages/sync-device", title: "Device \(device.deviceId)", area: .syncCentre, session: context.session, content: content))
    }

    @Sendable func history(_ context: WebContext) throws -> Response {
        let scope = TeamScope(context.session)
        let collection = try context.request.parameter("collection")
        let recordId = try context.request.parameter("recordId")
        // A supervisor only sees records of their team: in its scope, or changed by a member.
        if scope.blocked { throw PageError.forbidden }
        let pager = try Pager(context.request.query)
        let record = try store.record(collection: collection, recordId: recordId, teamId: scope.teamId)
        let page = try store.history(collection: collection, recordId: recordId, teamId: scope.teamId, after: pager.cursor, limit: Self.pageSize)
        if record == nil && page.rows.isEmpty {
            let elsewhere = scope.teamId == nil ? nil : try store.record(collection: collection, recordId: recordId, teamId: nil)
            throw elsewhere != nil ? PageError.forbidden : PageError.notFound
        }
        var content: [String: TemplateValue] = [
            "collection": .string(collection), "recordId": .string(recordId), "hasEntries": .bool(!page.rows.isEmpty), "showDevice": true,
            "entries": .array(page.rows.map { JournalRow($0, timeZone: configuration.timeZone).templateValue }),
            "pager": pager.navigation(
                path: Self.recordPath(collection, recordId), filters: [], count: page.rows.count, total: nil, next: page.next),
        ]
        if let record {
            content["record"] = Self.snapshot(record, album: try photos.album(for: RecordKey(collection: collection, recordId: recordId)))
        }
        return try renderer.render(
            Page("pages/sync-record", title: "\(collection) \(recordId)", area: .syncCentre, session: context.session, content: content))
    }

    // MARK: - Helpers

    /// The whole journal (every page; for a team, only its members' ops) as a streamed
    /// download; one batch of ops is read at a time, as the client takes the file.
    private func export(_ format: JournalExport.Format, device: DeviceSyncSummary, teamId: String?, status: OpStatus?) throws -> Response {
        let (store, timeZone, deviceId) = (store, configuration.timeZone, device.deviceId)
        return JournalExport.response(format, deviceId: deviceId) { add in
            try store.forEachJournalBatch(deviceId: deviceId, teamId: teamId, status: status) { batch in
                try add(batch.map { JournalRow($0, timeZone: timeZone) })
            }
        }
    }

    /// The journal's outcome filters, "All" first.
    private static func statusFilters(base: String, current: OpStatus?) -> [TemplateValue] {
        ([nil] + [OpStatus.applied, .conflict, .rejected, .deferred]).map { option in
            let label = option.map { OpWording.status($0, code: nil).label } ?? "All"
            let query = option.map { "?" + SafeRedirect.encodeQuery([("status", $0.rawValue)]) } ?? ""
            return ["label": .string(label), "path": .string(base + query), "active": .bool(option == current)]
        }
    }

    /// How many of the device's ops the journal lists with this filter (the op log holds
    /// only these four outcomes).
    private static func opCount(_ device: DeviceSyncSummary, _ status: OpStatus?) -> Int {
        switch status {
        case nil: device.applied + device.deferred + device.rejected + device.conflict
        case .applied?: device.applied
        case .deferred?: device.deferred
        case .rejected?: device.rejected
        case .conflict?: device.conflict
        case .retry?: 0
        }
    }

    /// The record as it stands now, for the top of its history.
    private static func snapshot(_ record: RecordSnapshot, album: PhotoAlbum) -> TemplateValue {
        [
            "serverSeq": .string(String(record.serverSeq)), "deleted": .bool(record.deleted),
            "conflictPath": record.conflictId.map { .string(ConflictPages.path(of: $0)) } ?? .null,
            "fields": .array(
                record.payload.sorted { $0.key < $1.key }.map { field in
                    [
                        "name": .string(field.key), "value": .string(ValueText.text(field.value)),
                        "photos": album.gallery(field: field.key, value: field.value),
                    ]
                }),
            "scope": .string(record.scopeKeys.map(\.rawValue).joined(separator: ", ")),
        ]
    }

    /// The device the path names, within the viewer's team for a supervisor.
    /// - Throws: 404 when there is none, 403 when it belongs to another team.
    private func targetDevice(_ context: WebContext) throws -> DeviceSyncSummary {
        let scope = TeamScope(context.session)
        guard let device = try store.device(id: try context.request.parameter("deviceId")) else {
            throw PageError.notFound
        }
        if scope.blocked || (scope.teamId != nil && device.teamId != scope.teamId) {
            throw PageError.forbidden
        }
        return device
    }

    private func belowText(_ count: Int) -> TemplateValue {
        count == 0 ? .null : .string(Formatting.counted(count, "device runs", plural: "devices run") + " an app below the minimum version.")
    }

    static func statusFilter(_ text: String?) throws -> OpStatus? {
        guard let text, !text.isEmpty else { return nil }
        guard let status = OpStatus(rawValue: text), status != .retry else { throw PageError.notFound }
        return status
    }

    static func isBelow(_ version: String?, _ minimum: AppVersion?) -> Bool {
        guard let minimum, let version, let parsed = AppVersion(version) else { return false }
        return parsed < minimum
    }

    private func row(_ device: DeviceSyncSummary, minimum: AppVersion?) -> TemplateValue {
        [
            "deviceId": .string(device.deviceId), "path": .string(Self.devicePath(device.deviceId)),
            "username": device.username.map(TemplateValue.string) ?? .null, "team": device.teamId.map(TemplateValue.string) ?? .null,
            "platform": device.platform.map(TemplateValue.string) ?? .null,
            "appVersion": device.appVersion.map(TemplateValue.string) ?? .null, "below": .bool(Self.isBelow(device.appVersion, minimum)),
            "lastSync": device.lastSyncAt.map { .string(Formatting.dateTime($0, in: configuration.timeZone)) } ?? .null,
            "applied": .int(device.applied), "deferred": .int(device.deferred), "rejected": .int(device.rejected),
            "conflict": .int(device.conflict), "deferredFlag": .bool(device.deferred > 0), "rejectedFlag": .bool(device.rejected > 0),
            "conflictFlag": .bool(device.conflict > 0),
        ]
    }
}

extension Area {
    /// `/admin/sync`: devices, journals and record histories; read-only for supervisors.
    public static let syncCentre = Area(
        path: "/admin/sync", title: "Sync centre", access: [.admin: .manage, .dispatcher: .manage, .supervisor: .view])
}

extension BackOfficePages {
    /// Adds the sync centre: devices, a device's journal (also as CSV or JSON) and a record's history.
    public func addSyncCentrePages(store: any SyncCentreStore, settings: any SettingsStore, photos: RecordPhotos, activity: any ActivityStore) {
        SyncCentrePages(
            store: store, settings: settings, photos: photos, charts: ActivityCharts(store: activity, configuration: configuration),
            renderer: renderer, configuration: configuration
        ).register(on: self)
    }
}
