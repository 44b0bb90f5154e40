public import SyncProtocol

/// What a role may do in an area: look, or also change things.
public enum Access: Int, Comparable, Sendable {
    case view = 1
    case manage = 2

    public static func < (lhs: Access, rhs: Access) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Who may open and change what in the back-office.
///
/// Routes declare the area and access they need (`view` for pages, `manage` for forms that
/// change data); each area lists the access of each role; navigation shows only the areas a
/// role may view.
///
/// ```swift
/// AccessPolicy.permits(.dispatcher, .manage, in: .orders)    // true
/// AccessPolicy.permits(.supervisor, .manage, in: .syncCentre) // false: read-only
/// ```
public enum AccessPolicy {
    /// Whether `role` has at least `access` in `area`.
    public static func permits(_ role: Role, _ access: Access, in area: Area) -> Bool {
        guard canSignIn(role), let granted = area.access[role] else { return false }
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
