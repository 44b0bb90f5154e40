public import HTTP
public import SyncEngine

/// `GET /v1/events` (bearer, behind the sync gate), and the stream behind the back-office's `GET /admin/events`
/// (PROTOCOL.md, Live events).
///
/// ```swift
/// let events = LiveEventsController(authenticator: authenticator, principals: principals, hub: hub)
/// events.register(on: routes)                                          // GET /v1/events
/// try events.backOfficeFeed(for: session.user, request: request)       // inside GET /admin/events
/// ```
public struct LiveEventsController: Sendable {
    let authenticator: Authenticator
    let principals: PrincipalResolver
    let hub: EventHub

    public init(authenticator: Authenticator, principals: PrincipalResolver, hub: EventHub) {
        self.authenticator = authenticator
        self.principals = principals
        self.hub = hub
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/events", admission: .sync, handler: deviceFeed)
    }

    @Sendable func deviceFeed(_ device: DeviceContext) throws -> Response {
        let identity = device.identity
        let viewer = EventViewer(principal: try device.principal(), feed: .device) { [authenticator] in try authenticator.stillValid(identity) }
        return try stream(for: viewer, request: device.request)
    }

    /// The back-office feed of a signed-in user; the caller has checked the session and that
    /// the user may open the live feed, and says how to tell that the session still holds.
    public func backOfficeFeed(
        for user: UserAccount, request: Request, stillSignedIn: @escaping @Sendable () throws -> Bool
    ) throws -> Response {
        let principal = try principals.principal(for: user, deviceId: user.backOfficeDeviceId)
        return try stream(for: EventViewer(principal: principal, feed: .backOffice, stillAllowed: stillSignedIn), request: request)
    }

    /// A `text/event-stream` response for `viewer`, resuming after `Last-Event-ID` (or the
    /// `lastEventId` query argument).
    /// - Throws: 429 `TOO_MANY_STREAMS` (an `APIError`, for the back-office too) past the stream caps.
    public func stream(for viewer: EventViewer, request: Request) throws -> Response {
        let resume = EventResume(header: request.headers["Last-Event-ID"] ?? request.query["lastEventId"])
        let subscription = try APIError.translating { try hub.subscribe(viewer, resume: resume) }
        return Response(
            status: 200,
            headers: [
                "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache",
                // Reverse proxies (nginx) would otherwise buffer the stream.
                "X-Accel-Buffering": "no",
            ], body: .stream(subscription))
    }
}
