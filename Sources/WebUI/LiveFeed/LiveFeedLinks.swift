import SyncEngine
import SyncProtocol

/// Where the rows of the dashboard's live feed lead, for one viewer: a path template per kind
/// of subject, with `{name}` standing for a field of the event's data (the script fills it in,
/// percent-encoded). A kind is left out when the viewer may not open any page about it, so a
/// row never links to a page that would refuse them.
///
/// ```swift
/// LiveFeedLinks.templates(for: .supervisor, isAvailable: renderer.isAvailable)
/// // ["record": "/admin/sync/records/{collection}/{recordId}", "order": "/admin/sync/records/orders/{orderId}", …]
/// ```
enum LiveFeedLinks {
    /// The subjects events are about, as the script names them.
    enum Subject: String, CaseIterable {
        case order, conflict, record, device, settings
    }

    static func templates(for role: Role, isAvailable: (Area) -> Bool) -> [Subject: String] {
        func opens(_ area: Area) -> Bool { isAvailable(area) && AccessPolicy.permits(role, .view, in: area) }
        var templates: [Subject: String] = [:]
        if opens(.syncCentre) {
            let records = SyncCentrePages.path + "/records/"
            templates[.record] = records + "{collection}/{recordId}"
            templates[.device] = SyncCentrePages.path + "/devices/{deviceId}"
            // An order is the record `orders/<orderId>` (PROTOCOL.md, Orders).
            templates[.order] = records + "orders/{orderId}"
            templates[.conflict] = templates[.record]
        }
        if opens(.orders) { templates[.order] = OrderPages.path + "/{orderId}" }
        if opens(.conflicts) { templates[.conflict] = ConflictPages.path + "/{conflictId}" }
        if opens(.settings) { templates[.settings] = Area.settings.path }
        return templates
    }

    /// The templates as one JSON object, for a `data-` attribute.
    static func json(for role: Role, isAvailable: (Area) -> Bool) -> String {
        let object = JSONValue.object(
            Dictionary(uniqueKeysWithValues: templates(for: role, isAvailable: isAvailable).map { ($0.key.rawValue, JSONValue.string($0.value)) }))
        return String(decoding: object.canonicalData(), as: UTF8.self)
    }
}
