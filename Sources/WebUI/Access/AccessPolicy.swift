import SyncProtocol

/// What a role may do in an area: look, or also change things.
public enum Access: Int, Comparable, Sendable {
    case view = 1
    case manage = 2

    public static func < (lhs: Access, rhs: Access) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The back-office's role matrix: the one place that says who may open and change what.
///
/// Routes declare the area and access they need (`view` for pages, `manage` for forms
/// that change data); navigation shows only the areas a role may view.
///
/// ```swift
/// AccessPolicy.permits(.dispatcher, .manage, in: .orders)    // true
/// AccessPolicy.permits(.supervisor, .manage, in: .syncCentre) // false: read-only
/// ```
public enum AccessPolicy {
    /// Per area, the strongest access of each role; a role not listed may not open it.
    /// Field users never reach the back-office (see `canSignIn`).
    static let matrix: [Area: [Role: Access]] = [
        .dashboard: [.admin: .view, .dispatcher: .view, .supervisor: .view],
        .orders: [.admin: .manage, .dispatcher: .manage],
        .conflicts: [.admin: .manage, .dispatcher: .manage],
        .syncCentre: [.admin: .manage, .dispatcher: .manage, .supervisor: .view],
        .teamRollup: [.admin: .view, .supervisor: .view],
        .liveEvents: [.admin: .view, .dispatcher: .view, .supervisor: .view],
        .users: [.admin: .manage],
        .settings: [.admin: .manage],
    ]

    /// Whether `role` has at least `access` in `area`.
    public static func permits(_ role: Role, _ access: Access, in area: Area) -> Bool {
        guard canSignIn(role), let granted = matrix[area]?[role] else { return false }
        return granted >= access
    }

    /// Whether `role` may sign in to the back-office at all: every role but `field`,
    /// whose people work on devices.
    public static func canSignIn(_ role: Role) -> Bool {
        role != .field
    }

    /// The areas among `available` that `role` may view, in the given order.
    public static func areas(for role: Role, among available: [Area]) -> [Area] {
        available.filter { permits(role, .view, in: $0) }
    }
}
