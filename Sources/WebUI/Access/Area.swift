/// A part of the back-office that a role may open, with where it lives and what the
/// navigation calls it.
public enum Area: String, CaseIterable, Sendable {
    case dashboard
    case orders
    case conflicts
    case syncCentre
    case teamRollup
    case liveEvents
    case users
    case settings

    /// The path of the area's main page.
    public var path: String {
        switch self {
        case .dashboard: "/admin"
        case .orders: "/admin/orders"
        case .conflicts: "/admin/conflicts"
        case .syncCentre: "/admin/sync"
        case .teamRollup: "/admin/team"
        case .liveEvents: "/admin/events"
        case .users: "/admin/users"
        case .settings: "/admin/settings"
        }
    }

    /// The area's name in the navigation and in page titles.
    public var title: String {
        switch self {
        case .dashboard: "Dashboard"
        case .orders: "Orders"
        case .conflicts: "Conflicts"
        case .syncCentre: "Sync centre"
        case .teamRollup: "Team"
        case .liveEvents: "Live feed"
        case .users: "Users & devices"
        case .settings: "Settings"
        }
    }
}
