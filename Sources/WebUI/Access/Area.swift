public import SyncProtocol

/// A part of the back-office: where its main page lives, what the navigation calls it, and
/// which roles may open it. Each feature declares its own areas beside its pages.
///
/// ```swift
/// extension Area {
///     public static let orders = Area(path: "/admin/orders", title: "Orders", access: [.admin: .manage, .dispatcher: .manage])
/// }
/// ```
/// Areas are told apart by their path.
public struct Area: Hashable, Sendable {
    /// The path of the area's main page.
    public let path: String
    /// The area's name in the navigation and in page titles.
    public let title: String
    /// The strongest access of each role; a role not listed may not open the area. Field
    /// users never reach the back-office, whatever is listed.
    let access: [Role: Access]
    /// Whether the navigation links to the area once its main page exists.
    let inNavigation: Bool

    public init(path: String, title: String, access: [Role: Access], inNavigation: Bool = true) {
        self.path = path
        self.title = title
        self.access = access
        self.inNavigation = inNavigation
    }

    public static func == (lhs: Area, rhs: Area) -> Bool { lhs.path == rhs.path }

    public func hash(into hasher: inout Hasher) { hasher.combine(path) }
}
