import SyncEngine
import SyncProtocol

/// How the search shows one kind of hit: its heading, each hit's words, and the page a hit
/// leads to for a role (nil: the role may not open any, so the kind is not searched).
struct SearchKind {
    let kind: SearchHit.Kind
    let heading: String
    let title: (SearchHit) -> String
    let detail: (SearchHit) -> String?
    /// The area each role's link leads into, most detailed first.
    let pages: [(area: Area, path: (SearchHit) -> String)]

    func area(for role: Role) -> Area {
        pages.first { AccessPolicy.permits(role, .view, in: $0.area) }?.area ?? pages[0].area
    }

    func link(for role: Role) -> ((SearchHit) -> String)? {
        pages.first { AccessPolicy.permits(role, .view, in: $0.area) }?.path
    }

    static var all: [SearchKind] {
        [
            SearchKind(
                kind: .record, heading: "Records", title: { "\($0.collection ?? "") · \($0.id)" }, detail: { $0.teamId.map { "Team \($0)" } },
                pages: [(.syncCentre, { SyncCentrePages.recordPath($0.collection ?? "", $0.id) })]),
            SearchKind(
                kind: .device, heading: "Devices", title: \.id,
                detail: { hit in hit.name.map { "Used by \($0)" + (hit.teamId.map { ", team \($0)" } ?? "") } },
                pages: [(.syncCentre, { SyncCentrePages.devicePath($0.id) })]),
            SearchKind(
                kind: .user, heading: "Users", title: { $0.name ?? $0.id },
                detail: { hit in
                    let role = hit.detail.flatMap(Role.init(rawValue:)).map(Formatting.roleName)
                    return [role, hit.teamId.map { "team \($0)" }].compactMap { $0 }.joined(separator: ", ").nonEmpty
                },
                pages: [
                    (.users, { "\(UserListPage.path)/\(PathSegment.encode($0.id))" }),
                    (.teamRollup, { hit in hit.teamId.map { "\(TeamPage.path)?team=\(PathSegment.encode($0))" } ?? TeamPage.path }),
                ]),
            SearchKind(
                kind: .order, heading: "Orders", title: \.id,
                detail: { hit in
                    [hit.name.map { "Customer \($0)" }, hit.detail.flatMap(OrderStatus.init(rawValue:)).map(OrderPages.statusName)].compactMap { $0 }
                        .joined(separator: " · ").nonEmpty
                },
                pages: [(.orders, { OrderPages.path(of: $0.id) })]),
        ]
    }
}

extension String {
    /// The text, or nil when it is empty.
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
