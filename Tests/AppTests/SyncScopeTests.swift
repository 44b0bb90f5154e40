import AppTesting
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// PROTOCOL.md "Scopes" as pulls see them, over HTTP against PostgreSQL.
@Suite("Pull scopes over HTTP")
struct SyncScopeTests {
    @Test("A field user pulls its own and its team's records, a supervisor its team's and members', a dispatcher everything")
    func scopesPerRole() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let ben = try await server.device(team: "north")
        let sam = try await server.device(.supervisor, team: "north")
        let carla = try await server.device(team: "south")
        let dora = try await server.device(.dispatcher, team: nil)
        try await ana.push1(ana.create("jobs", "job-ana", ["title": "ana's"]))
        try await carla.push1(carla.create("jobs", "job-carla", ["title": "carla's"]))
        let office = try await dora.push([
            dora.create("jobs", "job-ben-only", ["title": "for ben", "assigneeId": .string(ben.user.id)]),
            dora.create("jobs", "job-north", ["title": "for the team", "teamId": "north"]),
            dora.create("visits", "visit-office", ["siteId": "hq"]),
        ])
        #expect(office.allSatisfy { $0.status == .applied })

        func ids(_ device: SyncDevice) async throws -> [String] {
            try await device.drain().changes.map(\.recordId).sorted()
        }
        #expect(try await ids(ana) == ["job-ana", "job-north"])
        #expect(try await ids(ben) == ["job-ana", "job-ben-only", "job-north"])
        #expect(try await ids(sam) == ["job-ana", "job-ben-only", "job-north"])
        #expect(try await ids(carla) == ["job-carla"])
        #expect(try await ids(dora) == ["job-ana", "job-ben-only", "job-carla", "job-north", "visit-office"])
    }

    @Test("A record created without assigneeId and teamId gets the author's; a field device may create for its own team")
    func createdScope() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let ben = try await server.device(team: "north")

        try await ana.push([
            ana.create("jobs", "job-1", ["title": "mine"]), ana.create("jobs", "job-2", ["title": "team", "teamId": "north"]),
        ])

        #expect(try server.storedRecord("jobs", "job-1")?.payload["assigneeId"] == .string(ana.user.id))
        #expect(try server.storedRecord("jobs", "job-1")?.payload["teamId"] == "north")
        #expect(try server.storedRecord("jobs", "job-2")?.payload["assigneeId"] == nil)
        #expect(try await ben.drain().changes.map(\.recordId) == ["job-1", "job-2"])
    }

    @Test("A supervisor pulls its team's records and writes none: FIELD_READ_ONLY inside or outside its scope")
    func supervisorScope() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let sam = try await server.device(.supervisor, team: "north")
        let carla = try await server.device(team: "south")
        let north = try await ana.applied(ana.create("jobs", "job-north", ["title": "n"]))
        let south = try await carla.applied(carla.create("jobs", "job-south", ["title": "s"]))

        let results = try await sam.pushEach([
            sam.update("jobs", "job-south", ["notes": "peek"], base: south), sam.update("jobs", "job-north", ["notes": "ok"], base: north),
        ])

        #expect(results.map(\.code) == [.fieldReadOnly, .fieldReadOnly])
        #expect(try await sam.drain().changes.map(\.recordId) == ["job-north"])
        #expect(try server.storedRecord("jobs", "job-north")?.payload["notes"] == nil)
    }

    @Test("A remove is not skipped behind scope exits of records the caller still sees through its other key (small pages)")
    func removeBehindStillVisibleExits() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let ana = try await server.device(team: "north")
        let ben = try await server.device(team: "north")
        let dora = try await server.device(.dispatcher, team: nil)
        let mine: Values = ["assigneeId": .string(ana.user.id), "teamId": "north"]
        let ids = ["job-1", "job-2", "job-3", "job-x"]
        let created = try await dora.push(ids.map { dora.create("jobs", $0, mine.merging(["title": .string($0)]) { old, _ in old }) })
        var seqs = Dictionary(uniqueKeysWithValues: zip(ids, created.map { $0.serverSeq ?? 0 }))
        let initial = try await ana.drain()
        let cursor = initial.cursor

        // job-1..3 leave user:ana but stay in team:north; then job-x leaves both; then job-1..3 change again.
        for id in ids.dropLast() {
            seqs[id] = try await dora.applied(dora.update("jobs", id, ["assigneeId": .string(ben.user.id)], base: seqs[id]))
        }
        let gone = try await dora.applied(dora.update("jobs", "job-x", ["teamId": "south", "assigneeId": "someone"], base: seqs["job-x"]))
        for id in ids.dropLast() { seqs[id] = try await dora.applied(dora.update("jobs", id, ["notes": "later"], base: seqs[id])) }

        let run = try await ana.drain(from: cursor, limit: 2)

        #expect(run.last("jobs", "job-x")?.type == .remove && run.last("jobs", "job-x")?.serverSeq == gone)
        var replica = Replica(initial.changes)
        replica.apply(run.changes)
        #expect(replica.records.keys.sorted() == ["jobs/job-1", "jobs/job-2", "jobs/job-3"])
    }
}
