import Foundation
import Storage
public import Support
public import SyncAPI
import SyncEngine
public import WebUI
public import Worker

/// The live operations feed: `GET /v1/events` for devices, `GET /admin/events` for the
/// back-office, the hub that fans the outbox out to both, and the job that prunes the outbox.
public struct LiveFeedFeature: Feature {
    /// This process's live-event fan-out.
    public let hub: EventHub
    let events: LiveEventsController
    let outbox: PostgresRetentionStore
    let settings: any SettingsStore
    let webSessionIdleTimeout: TimeInterval

    init(_ core: Core) {
        outbox = PostgresRetentionStore(database: core.database)
        settings = core.settings
        webSessionIdleTimeout = core.configuration.web.idleTimeout
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

    public var jobs: [any Job] {
        [
            RetentionJob(
                name: "live-feed-outbox", summary: "Deletes live events older than a day from the live feed's outbox.",
                pass: RetentionPass(store: outbox, rules: [.events]), settings: settings, webSessionIdleTimeout: webSessionIdleTimeout,
                minutes: { $0.liveFeedOutboxJobMinutes })
        ]
    }
}
