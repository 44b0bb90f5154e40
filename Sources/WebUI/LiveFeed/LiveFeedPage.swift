public import HTTP
public import SyncEngine
import SyncProtocol

extension Area {
    /// `/admin/events`: the live operations feed (Server-Sent Events), shown on the dashboard.
    public static let liveEvents = Area(
        path: "/admin/events", title: "Live feed", access: [.admin: .view, .dispatcher: .view, .supervisor: .view], inNavigation: false)
}

/// The live-feed stream of a signed-in user, given how to tell that their session still holds;
/// the device API builds it, which the back-office does not depend on.
public typealias LiveFeedStream = @Sendable (UserAccount, Request, _ stillSignedIn: @escaping @Sendable () throws -> Bool) throws -> Response

extension BackOfficePages {
    /// Adds `GET /admin/events`, the live feed of users who may open it.
    public func addLiveFeed(_ stream: @escaping LiveFeedStream) {
        add(.GET, Area.liveEvents.path, area: .liveEvents) { [sessions] context in
            try stream(context.session.user, context.request) { try sessions.isLive(context.session) }
        }
    }
}
