import App
import AppTesting
import FieldSyncClient
import Foundation
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// Sign-in, an ended session, and sign-out that never loses work silently.
@Suite("Sessions and sign-out")
struct SessionTests {
    @Test("A revoked token (401) asks the user to sign in again; the queue is kept and syncs after the new sign-in")
    func signInAgain() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        let token = try #require(try ana.storedToken())
        #expect(try await bed.server.client.delete("/v1/auth/token", token: token).status == 204)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])

        let status = try await ana.client.sync()

        #expect(status.state == .needsAttention(.signInRequired))
        #expect(status.description == "Sign in again to sync. Your 2 pending changes are kept.")
        #expect(status.pendingChanges == 2)
        #expect(try await ana.client.record("jobs", id: "job-1") != nil)
        try await ana.client.signIn(username: ana.user.username, password: ana.password)
        #expect(try await ana.client.sync().description == "All changes synced")
        #expect(try bed.loggedOps(deviceId: ana.client.deviceId).map(\.clientSeq) == [1, 2])
    }

    @Test("Wrong credentials are refused with their own error, and nothing changes")
    func wrongPassword() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let (user, _) = try bed.server.makeUser(role: .field, team: "team-1")
        let client = try bed.client()

        await #expect(throws: SyncClientError.invalidCredentials) { try await client.signIn(username: user.username, password: "wrong") }
        #expect(client.status.state == .needsAttention(.signInRequired))
        await #expect(throws: SyncClientError.notSignedIn) { try await client.create("jobs", id: "job-1", ["title": "t"]) }
    }

    @Test("Sign-out is refused while work is unsynced, with the counts; forced, it says exactly what was lost")
    func signOutRefusedThenForced() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        network.set(.networkDown)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try await ana.client.update("jobs", id: "job-1", ["status": "complete"])
        _ = try await ana.client.addPhoto(at: try photoFile(in: bed, bytes: 70_000), to: "jobs", recordId: "job-1")

        await #expect(throws: SyncClientError.unsyncedWork(changes: 2, photos: 1)) { try await ana.client.signOut() }
        #expect(SyncClientError.unsyncedWork(changes: 2, photos: 1).description.hasPrefix("3 items are not synced yet."))
        #expect(try await ana.client.record("jobs", id: "job-1") != nil)

        let oldId = ana.client.deviceId
        let lost = try await ana.client.signOut(discardingUnsyncedWork: true)

        #expect(lost.changes.map(\.type) == [.create, .update] && lost.changes.allSatisfy { $0.recordId == "job-1" })
        #expect(lost.changes[1].values == ["status": "complete"] && lost.photos.count == 1)
        #expect(lost.description.hasPrefix("Discarded 2 unsynced changes and 1 photo: create jobs/job-1, update jobs/job-1, photo att-"))
        #expect(try await ana.client.records("jobs").isEmpty && ana.client.status.pending == 0)
        #expect(ana.client.status.state == .needsAttention(.signInRequired))
        // clientSeqs 1 and 2 never reached the server: the device starts over under a new id.
        network.set(nil)
        try await ana.client.signIn(username: ana.user.username, password: ana.password)
        try await ana.client.create("jobs", id: "job-9", ["title": "After"])
        #expect(try await ana.client.sync().description == "All changes synced")
        #expect(ana.client.deviceId != oldId)
        #expect(try bed.loggedOps(deviceId: ana.client.deviceId).map(\.status) == ["applied"])
    }

    @Test("A synced device signs out at once; the next sign-in continues the device's clientSeq")
    func cleanSignOut() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try await ana.client.sync()

        let lost = try await ana.client.signOut()
        try await ana.client.signIn(username: ana.user.username, password: ana.password)
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        try await ana.client.sync()

        #expect(lost.isEmpty && lost.description == "Nothing was lost.")
        #expect(try bed.loggedOps(deviceId: ana.client.deviceId).map(\.clientSeq) == [1, 2])
        #expect(try await ana.client.records("jobs").map(\.id) == ["job-1", "job-2"])
    }

    @Test("Another user may not sign in over unsynced work of the previous one")
    func anotherUser() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let network = FaultyTransport()
        let ana = try await bed.device(transport: network)
        let (ben, benPassword) = try bed.server.makeUser(role: .field, team: "team-1")
        network.set(.networkDown)
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        network.set(nil)

        await #expect(throws: SyncClientError.anotherUsersWorkPending(count: 1)) {
            try await ana.client.signIn(username: ben.username, password: benPassword)
        }
        #expect(try await ana.client.user()?.id == ana.user.id)
    }

    @Test("Another user signing in on a device with nothing unsynced starts over under a new device id, which that user owns")
    func anotherUserTakesOver() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler"])
        try await ana.client.sync()
        let anasDevice = ana.client.deviceId
        let (ben, benPassword) = try bed.server.makeUser(role: .field, team: "team-1")

        let signedIn = try await ana.client.signIn(username: ben.username, password: benPassword)

        #expect(signedIn.id == ben.id && ana.client.deviceId != anasDevice)
        #expect(try bed.server.core.accounts.deviceOwner(ana.client.deviceId) == ben.id)
        #expect(try bed.server.core.accounts.deviceOwner(anasDevice) == ana.user.id)
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        try await ana.client.sync()
        #expect(try bed.loggedOps(deviceId: ana.client.deviceId).map(\.clientSeq) == [1])
    }
}
