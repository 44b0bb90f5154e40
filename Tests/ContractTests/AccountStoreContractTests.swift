import Foundation
import Postgres
import Storage
import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

/// The accounts port: users, teams and device tokens, in memory and on PostgreSQL.
@Suite("Account store contract")
struct AccountStoreContractTests {
    private func accounts(_ implementation: Implementation) throws -> (any AccountStore, PostgresClient?) {
        let database = try implementation.database()
        return (database.map { PostgresAccountStore(database: $0) } ?? InMemoryAccountStore(), database)
    }

    @Test("user names are unique regardless of case and well-formed; teams group their members", arguments: Implementation.allCases)
    func usersAndTeams(_ implementation: Implementation) throws {
        let (accounts, database) = try accounts(implementation)
        defer { database?.shutdown() }
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: "north", passwordHash: "h")
        #expect(ana.teamId == "north" && ana.role == .field && !ana.suspended)
        #expect(throws: AccountError.usernameTaken("ANA")) { try accounts.createUser(username: "ANA", role: .admin, teamId: nil, passwordHash: "h") }
        #expect(throws: AccountError.invalidUsername("a b")) {
            try accounts.createUser(username: "a b", role: .field, teamId: nil, passwordHash: "h")
        }
        let bo = try accounts.createUser(username: "Bo", role: .field, teamId: "north", passwordHash: "h")
        _ = try accounts.createUser(username: "carl", role: .field, teamId: "south", passwordHash: "h")

        #expect(try accounts.memberIds(teamId: "north") == [ana.id, bo.id].sorted())
        #expect(try accounts.credentials(username: "Ana")?.user.id == ana.id)
        #expect(try accounts.credentials(username: "nobody") == nil)
        try accounts.setPasswordHash(userId: ana.id, "h2")
        #expect(try accounts.credentials(username: "ana")?.passwordHash == "h2")
        #expect(try accounts.user(id: bo.id) == bo && accounts.user(id: "u-none") == nil)
        #expect(try accounts.listUsers().map(\.username) == ["ana", "Bo", "carl"] && accounts.countUsers() == 3)
    }

    @Test(
        "a token grants while live; revoked or expired it grants nothing; a suspension revokes but shows on the grant",
        arguments: Implementation.allCases)
    func tokens(_ implementation: Implementation) throws {
        let (accounts, database) = try accounts(implementation)
        defer { database?.shutdown() }
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let issued = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: "ios", appVersion: "2.3.0", lifetime: 3600)
        let expired = try accounts.issueToken(userId: ana.id, deviceId: "dev-2", platform: nil, appVersion: nil, lifetime: -1)

        #expect(try accounts.grant(token: issued.token)?.deviceId == "dev-1")
        #expect(try accounts.grant(token: expired.token) == nil && accounts.grant(token: "not-a-token") == nil)
        try accounts.setSuspended(username: "ANA", true)
        #expect(try accounts.grant(token: issued.token)?.user.suspended == true, "the device learns of the suspension")
        #expect(throws: AccountError.unknownUser("nobody")) { try accounts.setSuspended(username: "nobody", true) }
        #expect(try !accounts.revoke(token: issued.token), "the suspension revoked it")
        try accounts.setSuspended(username: "ana", false)
        #expect(try accounts.grant(token: issued.token) == nil, "after reactivation the device signs in again")

        let again = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: "ios", appVersion: "2.3.0", lifetime: 3600)
        #expect(try accounts.revoke(token: again.token))
        #expect(try accounts.grant(token: again.token) == nil)
        #expect(try !accounts.revoke(token: again.token))
    }

    @Test("a device id belongs to its first user until released; a password reset revokes the user's tokens", arguments: Implementation.allCases)
    func deviceOwnership(_ implementation: Implementation) throws {
        let (accounts, database) = try accounts(implementation)
        defer { database?.shutdown() }
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let bo = try accounts.createUser(username: "bo", role: .field, teamId: nil, passwordHash: "h")
        let anas = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: nil, appVersion: nil, lifetime: 3600)

        #expect(try accounts.deviceOwner("dev-1") == ana.id && accounts.deviceOwner("dev-9") == nil)
        #expect(throws: AccountError.deviceIdTaken("dev-1")) {
            try accounts.issueToken(userId: bo.id, deviceId: "dev-1", platform: nil, appVersion: nil, lifetime: 3600)
        }
        #expect(try accounts.releaseDevice("dev-1", ownedBy: bo.id, by: nil) == nil, "only the owner's device is released")
        let retired = try #require(try accounts.releaseDevice("dev-1", ownedBy: ana.id, by: nil))
        #expect(retired.hasPrefix("dev-1\(DeviceRelease.separator)released-"))
        #expect(try accounts.grant(token: anas.token) == nil && accounts.deviceOwner("dev-1") == nil)
        #expect(try accounts.deviceOwner(retired) == ana.id)

        let bos = try accounts.issueToken(userId: bo.id, deviceId: "dev-1", platform: nil, appVersion: nil, lifetime: 3600)
        #expect(try accounts.grant(token: bos.token)?.user.id == bo.id)
        try accounts.setPasswordHash(userId: bo.id, "h2")
        #expect(try accounts.grant(token: bos.token) == nil)
    }

    @Test("listings: tokens newest first by id, live counts at a time, users and tokens paged without repeats", arguments: Implementation.allCases)
    func listings(_ implementation: Implementation) throws {
        let (accounts, database) = try accounts(implementation)
        defer { database?.shutdown() }
        let users = try ["dan", "ana", "Cy", "bo"].map { try accounts.createUser(username: $0, role: .field, teamId: nil, passwordHash: "h") }
        var issued: [String] = []
        for (index, device) in ["d-1", "d-2", "d-3"].enumerated() {
            _ = try accounts.issueToken(userId: users[1].id, deviceId: device, platform: nil, appVersion: nil, lifetime: index == 2 ? -1 : 3600)
            issued.append(device)
        }
        let all = try accounts.listTokens(userId: users[1].id)
        #expect(try accounts.listTokens(userId: users[0].id).isEmpty && all.count == 3)
        #expect(Set(all.map(\.deviceId)) == Set(issued))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.createdAt >= $1.createdAt })
        #expect(try accounts.token(id: all[0].tokenId)?.deviceId == all[0].deviceId && accounts.token(id: "00") == nil)
        let now = Date()
        #expect(try accounts.tokenCounts(liveAt: now) == TokenCounts(live: 2, all: 3))

        #expect(try accounts.revoke(tokenId: all[0].tokenId))
        #expect(try !accounts.revoke(tokenId: all[0].tokenId))
        #expect(try accounts.tokenCounts(liveAt: now).live == (all[0].deviceId == "d-3" ? 2 : 1))

        let first = try accounts.users(devicesLiveAt: now, after: nil, limit: 3)
        let second = try accounts.users(devicesLiveAt: now, after: first.next, limit: 3)
        #expect(first.rows.map(\.account.username) == ["ana", "bo", "Cy"] && second.rows.map(\.account.username) == ["dan"] && second.next == nil)
        let liveDevices = try accounts.listTokens(userId: users[1].id).filter { $0.revokedAt == nil && $0.expiresAt > now }.count
        #expect(first.rows[0].liveDevices == liveDevices)

        let page1 = try accounts.tokens(liveAt: nil, after: nil, limit: 2)
        let page2 = try accounts.tokens(liveAt: nil, after: page1.next, limit: 2)
        #expect((page1.rows + page2.rows).map(\.tokenId) == all.map(\.tokenId) && page2.next == nil)
        #expect(try accounts.tokens(liveAt: now, after: nil, limit: 10).rows.count == liveDevices)
        #expect(throws: PageCursor.Invalid.self) { try accounts.users(devicesLiveAt: now, after: PageCursor(["x"]), limit: 3) }
    }
}
