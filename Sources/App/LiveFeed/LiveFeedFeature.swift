import Storage
public import Support
public import SyncAPI
public import WebUI

/// The live operations feed: `GET /v1/events` for devices, `GET /admin/events` for the
/// back-office, and the hub that fans the outbox out to both.
public struct LiveFeedFeature: Feature {
    /// This process's live-event fan-out.
    public let hub: EventHub
    let events: LiveEventsController

    init(_ core: Core) {
        hub = EventHub(
            feed: PostgresOutboxReader(database: core.database, logger: core.logger), options: core.configuration.liveEvents,
            logger: core.logger)
        events = LiveEventsController(authenticator: core.authenticator, principals: core.principals, hub: hub)
        // A revoked token or a suspended user must not keep an open feed.
        core.notifications.on(.accounts) { [hub] in hub.recheckViewers() }
    }

    public func routes(on api: APIRoutes) {
        events.register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addLiveFeed { [events] user, request, stillSignedIn in
            try events.backOfficeFeed(for: user, request: request, stillSignedIn: stillSignedIn)
        }
    }

    public var services: [any Service] { [hub] }
}
