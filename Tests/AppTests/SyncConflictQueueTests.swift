import AppTesting
import Foundation
import SyncEngine
import SyncProtocol
import Testing

/// Policy `manual` (rule 8) and PROTOCOL.md "Conflict resolution", over HTTP against PostgreSQL.
@Suite("Conflict queue over HTTP")
struct SyncConflictQueueTests {
    /// A `reports` record ana created and ben changed since, and ana's conflicting op.
    struct Review {
        let server: TestServer
        let ana: SyncDevice
        let ben: SyncDevice
        let created: Int64
        let benSeq: Int64
        let result: OpResult
        var conflictId: String { result.conflictId ?? "" }

        static func open() async throws -> Review {
            let server = try await TestServer.startSync()
            do {
                let ana = try await server.device(team: "north")
                let ben = try await server.device(team: "north")
                let created = try await ana.applied(ana.create("reports", "rep-1", ["assignmentId": "as-1", "answers": ["q1": "yes"]]))
                let benSeq = try await ben.applied(ben.update("reports", "rep-1", ["answers": ["q1": "no"]], base: created))
                let result = try await ana.push1(
                    ana.update(
                        "reports", "rep-1", ["answers": ["q1": "maybe"], "photos": ["att-9"]], base: created,
                        old: ["answers": ["q1": "yes"]]))
                return Review(server: server, ana: ana, ben: ben, created: created, benSeq: benSeq, result: result)
            } catch {
                server.finish()
                throw error
            }
        }
    }

    @Test("Rule 8 manual: a conflicting reports op applies nothing, opens an entry with both full revisions, flags the record")
    func manualOpensReview() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let result = review.result

        #expect(result.status == .conflict && result.code == .reviewRequired && result.serverSeq == nil)
        let conflictId = try #require(result.conflictId)
        #expect(result.conflicts?.map(\.field) == ["answers"])
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.payload["answers"] == ["q1": "no"] && stored.payload["photos"] == nil)
        #expect(stored.conflictId == conflictId && stored.serverSeq > review.benSeq)

        let entry = try #require(try await review.ana.conflicts(.open).first)
        #expect(entry.id == conflictId && entry.state == .open && entry.recordId == "rep-1" && entry.collection == "reports")
        #expect(entry.authorId == review.ana.user.id && entry.deviceId == review.ana.deviceId && entry.resolution == nil)
        #expect(entry.deviceRevision["answers"] == ["q1": "maybe"] && entry.deviceRevision["photos"] == ["att-9"])
        #expect(entry.serverRevision["answers"] == ["q1": "no"] && entry.serverRevision["assignmentId"] == "as-1")
        #expect(
            entry.fields == [
                FieldConflict(
                    field: "answers", clientOld: ["q1": "yes"], clientNew: ["q1": "maybe"], serverCurrent: ["q1": "no"],
                    serverSeq: review.benSeq)
            ])
    }

    @Test("An open conflict reaches pulls as conflict {id, state: open} with a new serverSeq")
    func pullShowsFlag() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }

        let change = try #require(try await review.ben.drain().last("reports", "rep-1"))

        #expect(change.conflict == Change.ConflictRef(id: review.conflictId, state: .open))
        #expect(change.serverSeq > review.benSeq && change.payload?["answers"] == ["q1": "no"])
    }

    @Test("GET /v1/conflicts: a field user sees its own ops' conflicts, a supervisor its team's, a dispatcher all")
    func listVisibility() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let sam = try await review.server.device(.supervisor, team: "north")
        let otherSupervisor = try await review.server.device(.supervisor, team: "south")
        let dora = try await review.server.device(.dispatcher, team: nil)

        #expect(try await review.ana.conflicts().map(\.id) == [review.conflictId])
        #expect(try await review.ben.conflicts().isEmpty)
        #expect(try await sam.conflicts(.open).map(\.id) == [review.conflictId])
        #expect(try await otherSupervisor.conflicts().isEmpty)
        #expect(try await dora.conflicts(.open).map(\.id) == [review.conflictId])
        #expect(try await dora.conflicts(.resolved).isEmpty)
        let bad = try await review.server.client.get("/v1/conflicts?state=maybe", token: dora.token)
        #expect(bad.status == 400 && bad.errorCode == "VALIDATION_FAILED")
    }

    @Test("Resolving by device applies the device revision with a new seq and clears the flag; a second resolution is 409")
    func resolveDevice() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let cursor = try await review.ben.drain().cursor

        let response = try await review.ana.resolve(review.conflictId, .device)

        #expect(response.status == 200)
        let entry = try response.decode(ConflictEntry.self)
        #expect(entry.state == .resolved && entry.resolution?.choice == .device && entry.resolution?.by == review.ana.user.id)
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.payload["answers"] == ["q1": "maybe"] && stored.payload["photos"] == ["att-9"] && stored.conflictId == nil)
        #expect(entry.resolution?.serverSeq == stored.serverSeq)
        let change = try #require(try await review.ben.drain(from: cursor).last("reports", "rep-1"))
        #expect(change.conflict == nil && change.serverSeq == stored.serverSeq)

        let again = try await review.ana.resolve(review.conflictId, .server)
        #expect(again.status == 409 && again.errorCode == "CONFLICT_ALREADY_RESOLVED")
        #expect(try review.server.storedRecord("reports", "rep-1") == stored)
        #expect(try await review.ana.conflicts(.resolved).map(\.id) == [review.conflictId])
    }

    @Test("Resolving by server keeps the server values, closes the entry and still commits a new change")
    func resolveServer() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let dora = try await review.server.device(.dispatcher, team: nil)
        let flagged = try #require(try review.server.storedRecord("reports", "rep-1"))

        let response = try await dora.resolve(review.conflictId, .server)

        #expect(response.status == 200)
        let entry = try response.decode(ConflictEntry.self)
        #expect(entry.resolution?.choice == .server && entry.resolution?.by == dora.user.id)
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.payload == flagged.payload && stored.conflictId == nil && stored.serverSeq > flagged.serverSeq)
        #expect(try await review.ana.conflicts(.open).isEmpty)
    }

    @Test("Resolving by merge applies the given fields; a merge needs valid, known fields; only author and office may resolve")
    func resolveMerge() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }

        let forbidden = try await review.ben.resolve(review.conflictId, .device)
        let empty = try await review.ana.resolve(review.conflictId, .merge)
        let unknown = try await review.ana.resolve(review.conflictId, .merge, fields: ["colour": "red"])
        let wrongType = try await review.ana.resolve(review.conflictId, .merge, fields: ["answers": "no"])
        let missing = try await review.ana.resolve("no-such-conflict", .server)
        let unstorable = try await review.ana.resolve(review.conflictId, .merge, fields: ["answers": ["q1": "\u{0}"]])
        #expect(forbidden.status == 403 && forbidden.errorCode == "FORBIDDEN")
        #expect(empty.status == 400 && empty.errorCode == "VALIDATION_FAILED")
        #expect(unknown.status == 400 && unknown.errorCode == "UNKNOWN_FIELD")
        #expect(wrongType.status == 400 && wrongType.errorCode == "VALIDATION_FAILED")
        #expect(missing.status == 404)
        #expect(unstorable.status == 400 && unstorable.errorCode == "VALIDATION_FAILED")
        #expect(try unstorable.errorEnvelope().error.details?["field"] == "answers")
        #expect(try review.server.storedRecord("reports", "rep-1")?.conflictId == review.conflictId)

        let merged = try await review.ana.resolve(review.conflictId, .merge, fields: ["answers": ["q1": "no", "note": "both"]])

        #expect(merged.status == 200)
        #expect(try merged.decode(ConflictEntry.self).resolution?.choice == .merge)
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.payload["answers"] == ["q1": "no", "note": "both"] && stored.payload["photos"] == nil && stored.conflictId == nil)
    }

    @Test("A pushed op with a fresh baseServerSeq and resolves keeps the device's changes and closes the entry")
    func resolvesByPush() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let flagged = try #require(try review.server.storedRecord("reports", "rep-1"))

        let result = try await review.ana.push1(
            review.ana.op(.update, "reports", "rep-1", ["answers": ["q1": "maybe"]], base: flagged.serverSeq, resolves: review.conflictId))

        #expect(result.status == .applied && result.conflicts == nil)
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.payload["answers"] == ["q1": "maybe"] && stored.conflictId == nil)
        let entry = try #require(try await review.ana.conflicts(.resolved).first)
        #expect(entry.id == review.conflictId && entry.resolution?.choice == .device && entry.resolution?.serverSeq == result.serverSeq)
        let foreign = try await review.ben.push1(
            review.ben.op(.update, "reports", "rep-1", ["answers": [:]], base: stored.serverSeq, resolves: "nope"))
        #expect(foreign.code == .validationFailed && foreign.details?["field"] == "resolves")
    }

    @Test("Resolutions racing for one entry: exactly one answers 200, the others 409 CONFLICT_ALREADY_RESOLVED")
    func concurrentResolutions() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let dora = try await review.server.device(.dispatcher, team: nil)
        let choices: [(SyncDevice, ResolutionChoice)] = [(review.ana, .device), (dora, .server), (review.ana, .server), (dora, .device)]

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (device, choice) in choices { group.addTask { try await device.resolve(review.conflictId, choice).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }

        #expect(statuses.sorted() == [200, 409, 409, 409])
        #expect(try await dora.conflicts(.resolved).map(\.id) == [review.conflictId])
    }

    @Test("An entry whose record was deleted since can only be closed with server: device is 410 RECORD_DELETED")
    func resolveOnDeletedRecord() async throws {
        let review = try await Review.open()
        defer { review.server.finish() }
        let flagged = try #require(try review.server.storedRecord("reports", "rep-1"))
        let deleted = try await review.ben.applied(review.ben.delete("reports", "rep-1", base: flagged.serverSeq))

        let device = try await review.ana.resolve(review.conflictId, .device)
        let server = try await review.ana.resolve(review.conflictId, .server)

        #expect(device.status == 410 && device.errorCode == "RECORD_DELETED")
        #expect(server.status == 200)
        let stored = try #require(try review.server.storedRecord("reports", "rep-1"))
        #expect(stored.deletedSeq == deleted && stored.serverSeq > deleted && stored.conflictId == nil)
        #expect(stored.payload["answers"] == ["q1": "no"])
    }
}
