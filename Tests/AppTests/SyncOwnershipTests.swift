import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// Each thing reachable only by its owner, over the device API against PostgreSQL: device
/// ids, scope values a field user writes, conflict resolutions, orders.
@Suite("Ownership over the device API")
struct SyncOwnershipTests {
    @Test("A device id belongs to the user who first signed in with it; another user gets 409 DEVICE_ID_TAKEN")
    func deviceIdTaken() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let (ana, anaPassword) = try server.makeUser(team: "north")
        let (sam, samPassword) = try server.makeUser(role: .supervisor, team: "south")
        let anaToken = try await server.login(username: ana.username, password: anaPassword, deviceId: "dev-8842")

        let taken = try await server.client.post(
            "/v1/auth/token",
            json: TokenRequest(username: sam.username, password: samPassword, deviceId: "dev-8842", platform: "ios", appVersion: "2.3.0"))

        #expect(taken.status == 409 && taken.errorCode == "DEVICE_ID_TAKEN", "\(taken)")
        #expect(try taken.errorEnvelope().error.details?["deviceId"] == "dev-8842")
        #expect(try server.core.accounts.listTokens(userId: sam.id).isEmpty)
        #expect(try server.core.accounts.deviceOwner("dev-8842") == ana.id)
        #expect(try await server.client.get("/v1/config", token: anaToken).status == 200)
        _ = try await server.login(username: ana.username, password: anaPassword, deviceId: "dev-8842")
    }

    @Test("A field user may set assigneeId and teamId only inside its own scope, else OUT_OF_SCOPE naming the field")
    func scopeValues() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let carla = try await server.device(team: "south")
        let own = ana.user.id

        let results = try await ana.pushEach([
            ana.create("jobs", "job-south", ["title": "t", "assigneeId": .string(own), "teamId": "south"]),
            ana.create("jobs", "job-carla", ["title": "t", "assigneeId": .string(carla.user.id), "teamId": "north"]),
        ])
        #expect(results.map(\.code) == [.outOfScope, .outOfScope])
        #expect(results.map { $0.details?["field"] } == ["teamId", "assigneeId"])
        let mine = try await ana.applied(ana.create("jobs", "job-mine", ["title": "t", "assigneeId": .string(own), "teamId": "north"]))
        let moved = try await ana.push1(ana.update("jobs", "job-mine", ["teamId": "south"], base: mine))
        #expect(moved.status == .rejected && moved.code == .outOfScope && moved.details?["field"] == "teamId")
        #expect(try server.storedRecord("jobs", "job-south") == nil && server.storedRecord("jobs", "job-carla") == nil)
        #expect(try server.storedRecord("jobs", "job-mine")?.payload["teamId"] == "north")
        #expect(try await carla.drain().changes.isEmpty)
    }

    /// ana's notes on `visit` lose to the office's: an open conflict entry of ana's.
    static func openConflict(_ visit: String, ana: SyncDevice, dora: SyncDevice) async throws -> (id: String, seq: Int64) {
        let created = try await ana.applied(ana.create("visits", visit, ["siteId": "s-1"]))
        let office = try await dora.applied(dora.update("visits", visit, ["notes": "office"], base: created))
        let lost = try await ana.push1(ana.update("visits", visit, ["notes": "mine"], base: created))
        return (try #require(lost.conflictId, "\(lost)"), office)
    }

    @Test("A device's conflict resolution runs the push's lock, transition and scope checks")
    func resolutionChecks() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let carla = try await server.device(team: "south")
        let dora = try await server.device(.dispatcher, team: nil)

        let locked = try await Self.openConflict("v-locked", ana: ana, dora: dora)
        var seq = locked.seq
        for status in ["checked_in", "in_progress", "done"] {
            seq = try await dora.applied(dora.update("visits", "v-locked", ["status": .string(status)], base: seq))
        }
        let lockAnswer = try await ana.resolve(locked.id, .merge, fields: ["notes": "after all"])
        #expect(lockAnswer.status == 409 && lockAnswer.errorCode == "RECORD_LOCKED", "\(lockAnswer)")

        let jump = try await Self.openConflict("v-jump", ana: ana, dora: dora)
        let jumpAnswer = try await ana.resolve(jump.id, .merge, fields: ["status": "done"])
        #expect(jumpAnswer.status == 409 && jumpAnswer.errorCode == "TRANSITION_NOT_ALLOWED", "\(jumpAnswer)")

        let away = try await Self.openConflict("v-away", ana: ana, dora: dora)
        let awayAnswer = try await ana.resolve(away.id, .merge, fields: ["teamId": "south", "notes": "x"])
        #expect(awayAnswer.status == 403 && awayAnswer.errorCode == "OUT_OF_SCOPE", "\(awayAnswer)")
        _ = try await dora.applied(dora.update("visits", "v-away", ["assigneeId": .string(carla.user.id), "teamId": "south"], base: away.seq))
        let goneAnswer = try await ana.resolve(away.id, .server)
        #expect(goneAnswer.status == 403 && goneAnswer.errorCode == "OUT_OF_SCOPE", "\(goneAnswer)")

        #expect(try server.storedRecord("visits", "v-locked")?.payload["notes"] == "office")
        #expect(try server.storedRecord("visits", "v-jump")?.payload["status"] == "planned")
        #expect(try await ana.conflicts(.open).count == 3, "nothing was resolved")
        let allowed = try await ana.resolve(jump.id, .merge, fields: ["status": "checked_in"])
        #expect(allowed.status == 200, "\(allowed)")
    }

    @Test("An order reaches only its orderer's pull among field users, and its team's supervisor and the office")
    func ordersArePersonal() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let ben = try await server.device(team: "north")
        let sam = try await server.device(.supervisor, team: "north")
        let dora = try await server.device(.dispatcher, team: nil)
        try await ben.push1(ben.create("jobs", "job-team", ["title": "shared", "teamId": "north"]))

        let order = try await server.createOrder("ord-ana", token: ana.token)

        func ids(_ device: SyncDevice) async throws -> [String] {
            try await device.drain().changes.map(\.recordId).sorted()
        }
        #expect(try await ids(ana) == ["job-team", "ord-ana"])
        #expect(try await ids(ben) == ["job-team"], "a teammate never pulls another's order")
        #expect(try await ids(sam) == ["job-team", "ord-ana"])
        #expect(try await ids(dora) == ["job-team", "ord-ana"])
        let edit = try await ben.push1(ben.update("orders", "ord-ana", ["note": "mine now"], base: order.serverSeq))
        #expect(edit.status == .rejected && edit.code == .outOfScope)
    }
}
