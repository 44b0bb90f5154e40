import SyncProtocol
import Testing

@testable import WebUI

@Suite("The back-office role matrix")
struct AccessPolicyTests {
    /// Every area of the back-office.
    static let everyArea: [Area] = [.dashboard, .orders, .conflicts, .syncCentre, .teamRollup, .liveEvents, .users, .settings]

    @Test("Administrators open every area and manage every area that has something to change")
    func administrators() {
        for area in Self.everyArea {
            #expect(AccessPolicy.permits(.admin, .view, in: area))
        }
        for area in [Area.orders, .conflicts, .syncCentre, .users, .settings] {
            #expect(AccessPolicy.permits(.admin, .manage, in: area))
        }
    }

    @Test("Dispatchers handle orders, conflicts and the sync centre, and nothing of users or settings")
    func dispatchers() {
        for area in [Area.orders, .conflicts, .syncCentre] {
            #expect(AccessPolicy.permits(.dispatcher, .manage, in: area))
        }
        for area in [Area.users, .settings, .teamRollup] {
            #expect(!AccessPolicy.permits(.dispatcher, .view, in: area))
        }
        #expect(AccessPolicy.permits(.dispatcher, .view, in: .dashboard))
    }

    @Test("Supervisors see their team's roll-up and the sync centre, read-only")
    func supervisors() {
        for area in [Area.teamRollup, .syncCentre, .dashboard] {
            #expect(AccessPolicy.permits(.supervisor, .view, in: area))
            #expect(!AccessPolicy.permits(.supervisor, .manage, in: area))
        }
        for area in [Area.orders, .conflicts, .users, .settings] {
            #expect(!AccessPolicy.permits(.supervisor, .view, in: area))
        }
    }

    @Test("Field users can neither sign in nor open anything")
    func fieldUsers() {
        #expect(!AccessPolicy.canSignIn(.field))
        for area in Self.everyArea {
            #expect(!AccessPolicy.permits(.field, .view, in: area))
        }
        #expect(Role.allCases.filter(AccessPolicy.canSignIn) == [.supervisor, .dispatcher, .admin])
    }

    @Test("Navigation lists only the areas a role may view, in the given order")
    func navigation() {
        let available: [Area] = [.dashboard, .orders, .users, .settings]
        #expect(AccessPolicy.areas(for: .admin, among: available) == available)
        #expect(AccessPolicy.areas(for: .dispatcher, among: available) == [.dashboard, .orders])
        #expect(AccessPolicy.areas(for: .supervisor, among: available) == [.dashboard])
        #expect(AccessPolicy.areas(for: .field, among: available).isEmpty)
    }
}
