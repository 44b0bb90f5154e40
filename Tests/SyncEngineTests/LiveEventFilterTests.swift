import SyncProtocol
import Testing

@testable import SyncEngine

/// The people of the filter matrix: two teams, north (ana, ben; supervisor sue) and south (carl).
private enum Viewers {
    static let ana = Principal(userId: "ana", role: .field, teamId: "north", deviceId: "d-ana")
    static let ben = Principal(userId: "ben", role: .field, teamId: "north", deviceId: "d-ben")
    static let sue = Principal(userId: "sue", role: .supervisor, teamId: "north", deviceId: "d-sue", teamMemberIds: ["ana", "ben"])
    static let dora = Principal(userId: "dora", role: .dispatcher, deviceId: "web:dora")
    static let adam = Principal(userId: "adam", role: .admin, deviceId: "web:adam")
}

/// Events as the engine writes their audience: the record's scope keys plus the acting users.
private enum Events {
    static let anaOrderCreated = EventHeader(type: .orderCreated, audience: [.team("north"), .user("ana")])
    static let anaOrderConfirmed = EventHeader(type: .orderStatusChanged, audience: [.team("north"), .user("ana"), .user("dora")])
    static let anaOrderRecord = EventHeader(type: .recordChanged, audience: [.team("north"), .user("ana"), .user("dora")], collection: "orders")
    static let northJob = EventHeader(type: .recordChanged, audience: [.team("north"), .user("ben")], collection: "jobs")
    static let southJob = EventHeader(type: .recordChanged, audience: [.team("south"), .user("carl")], collection: "jobs")
    static let southConflict = EventHeader(type: .conflictOpened, audience: [.team("south"), .user("carl")], collection: "reports")
    static let northConflict = EventHeader(type: .conflictResolved, audience: [.team("north"), .user("ben"), .user("dora")], collection: "reports")
    static let benSynced = EventHeader(type: .deviceSynced, audience: [.team("north"), .user("ben")])
    static let settings = EventHeader(type: .settingsChanged, audience: [])
}

@Suite("Live event filter: who receives which event")
struct LiveEventFilterTests {
    private func allows(_ principal: Principal, _ feed: EventFeed, _ event: EventHeader) -> Bool {
        LiveEventFilter.allows(EventViewer(principal: principal, feed: feed), event)
    }

    @Test("A field user gets its own orders' events, never a teammate's, not even as record.changed of orders")
    func fieldOrders() {
        for event in [Events.anaOrderCreated, Events.anaOrderConfirmed, Events.anaOrderRecord] {
            #expect(allows(Viewers.ana, .device, event))
            #expect(!allows(Viewers.ben, .device, event))
        }
    }

    @Test("A field user gets record and conflict events of its scope (its team or itself), not another team's")
    func fieldScope() {
        #expect(allows(Viewers.ana, .device, Events.northJob))
        #expect(allows(Viewers.ana, .device, Events.northConflict))
        #expect(!allows(Viewers.ana, .device, Events.southJob))
        #expect(!allows(Viewers.ana, .device, Events.southConflict))
        #expect(!allows(Viewers.ana, .device, Events.settings))
    }

    @Test("Device syncs are personal for field users; a field user has no back-office feed")
    func fieldPersonalAndBackOffice() {
        #expect(allows(Viewers.ben, .device, Events.benSynced))
        #expect(!allows(Viewers.ana, .device, Events.benSynced))
        #expect(!allows(Viewers.ana, .backOffice, Events.northJob))
        #expect(!allows(Viewers.ana, .backOffice, Events.anaOrderCreated))
    }

    @Test("A supervisor gets its team's activity on both feeds and never another team's")
    func supervisor() {
        for feed in [EventFeed.device, .backOffice] {
            for event in [Events.anaOrderCreated, Events.anaOrderConfirmed, Events.northJob, Events.northConflict, Events.benSynced] {
                #expect(allows(Viewers.sue, feed, event))
            }
            for event in [Events.southJob, Events.southConflict, Events.settings] {
                #expect(!allows(Viewers.sue, feed, event))
            }
        }
        let memberOnly = EventHeader(type: .recordChanged, audience: [.user("ana")], collection: "jobs")
        #expect(allows(Viewers.sue, .backOffice, memberOnly), "user:<member> is team activity")
    }

    @Test("A dispatcher's back-office feed is orders and conflicts of every team; its device feed is everything")
    func dispatcher() {
        for event in [Events.anaOrderCreated, Events.anaOrderConfirmed, Events.southConflict, Events.northConflict] {
            #expect(allows(Viewers.dora, .backOffice, event))
        }
        for event in [Events.northJob, Events.southJob, Events.benSynced, Events.settings, Events.anaOrderRecord] {
            #expect(!allows(Viewers.dora, .backOffice, event))
            #expect(allows(Viewers.dora, .device, event))
        }
    }

    @Test("An admin gets everything on both feeds")
    func admin() {
        let all = [
            Events.anaOrderCreated, Events.anaOrderConfirmed, Events.anaOrderRecord, Events.northJob, Events.southJob,
            Events.southConflict, Events.northConflict, Events.benSynced, Events.settings,
        ]
        for feed in [EventFeed.device, .backOffice] {
            #expect(all.allSatisfy { allows(Viewers.adam, feed, $0) })
        }
    }
}
