import Foundation
import Postgres
import Storage
import SyncEngine
import SyncEngineTesting
import Testing

/// The back-office sessions port, in memory and on PostgreSQL.
@Suite("Web session store contract")
struct WebSessionStoreContractTests {
    /// Times with whole seconds, which every store keeps exactly.
    private let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func sessions(_ implementation: Implementation) throws -> (any WebSessionStore, PostgresClient?) {
        let database = try implementation.database(users: ["u-ana", "u-ben"])
        return (database.map { PostgresWebSessionStore(database: $0) } ?? InMemoryWebSessionStore(), database)
    }

    @Test(
        "a session lives until its absolute expiry or idle cutoff; touch moves its idle time, find does not",
        arguments: Implementation.allCases)
    func liveness(_ implementation: Implementation) throws {
        let (sessions, database) = try sessions(implementation)
        defer { database?.shutdown() }
        let id = try sessions.create(userId: "u-ana", now: now, expiresAt: now + 3600)
        let record = WebSessionRecord(userId: "u-ana", createdAt: now, expiresAt: now + 3600)

        #expect(try sessions.find(id: id, now: now + 60, idleCutoff: now - 60) == record)
        #expect(try sessions.find(id: id, now: now + 60, idleCutoff: now) == nil, "last seen at the cutoff is idle")
        #expect(try sessions.find(id: "unknown", now: now, idleCutoff: now - 60) == nil)
        #expect(try sessions.touch(id: id, now: now + 600, idleCutoff: now - 60) == record)
        #expect(try sessions.find(id: id, now: now + 700, idleCutoff: now + 300) == record, "touch recorded the activity")
        #expect(try sessions.touch(id: id, now: now + 3600, idleCutoff: now) == nil, "ended at its absolute expiry")
    }

    @Test("sign-out ends one session, deleteAll every session of a user, purge only unusable ones", arguments: Implementation.allCases)
    func ending(_ implementation: Implementation) throws {
        let (sessions, database) = try sessions(implementation)
        defer { database?.shutdown() }
        let first = try sessions.create(userId: "u-ana", now: now, expiresAt: now + 3600)
        let second = try sessions.create(userId: "u-ana", now: now, expiresAt: now + 3600)
        let ben = try sessions.create(userId: "u-ben", now: now, expiresAt: now + 60)
        let idle = now - 30

        try sessions.delete(id: first)
        #expect(try sessions.find(id: first, now: now, idleCutoff: idle) == nil)
        #expect(try sessions.find(id: second, now: now, idleCutoff: idle) != nil)
        #expect(try sessions.purgeExpired(now: now + 120, idleCutoff: idle) == 1, "ben's session expired")
        #expect(try sessions.find(id: ben, now: now, idleCutoff: idle) == nil)
        #expect(try sessions.deleteAll(userId: "u-ana") == 1)
        #expect(try sessions.deleteAll(userId: "u-ana") == 0)
    }
}
