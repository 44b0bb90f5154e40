import Cryptography
import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import SyncProtocol
import Testing

@Suite("Accounts in PostgreSQL")
struct AccountStoreTests {
    let database: PostgresClient
    let accounts: PostgresAccountStore

    init() throws {
        database = try StorageDatabase.migrated()
        accounts = PostgresAccountStore(database: database)
    }

    @Test("Creating a user creates its team; user names are unique regardless of case")
    func usersAndTeams() throws {
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: "north", passwordHash: "h")
        #expect(ana.teamId == "north" && ana.role == .field && !ana.suspended)
        #expect(throws: AccountError.usernameTaken("ANA")) {
            try accounts.createUser(username: "ANA", role: .admin, teamId: nil, passwordHash: "h")
        }
        #expect(throws: AccountError.invalidUsername("a b")) {
            try accounts.createUser(username: "a b", role: .field, teamId: nil, passwordHash: "h")
        }
        _ = try accounts.createUser(username: "bo", role: .field, teamId: "north", passwordHash: "h")
        #expect(try accounts.memberIds(teamId: "north").count == 2)
        #expect(try accounts.credentials(username: "Ana")?.user.id == ana.id)
        #expect(try accounts.listUsers().map(\.username) == ["ana", "bo"])
    }

    @Test("Tokens are stored hashed, found while live, and dead once revoked")
    func tokens() throws {
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let issued = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: "ios", appVersion: "2.3.0", lifetime: 3600)
        let stored = try database.withConnection { try $0.query("SELECT token_hash FROM device_tokens")[0].decode(0, as: Data.self) }
        #expect(stored == SHA256.hash(Data(issued.token.utf8)))
        #expect(try accounts.grant(token: issued.token)?.deviceId == "dev-1")
        #expect(try accounts.grant(token: "not-a-token") == nil)
        #expect(try accounts.listTokens(userId: ana.id).count == 1)
        #expect(try accounts.revoke(token: issued.token))
        #expect(try accounts.grant(token: issued.token) == nil)
        #expect(try !accounts.revoke(token: issued.token))
    }

    @Test("An expired token grants nothing")
    func expiredToken() throws {
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let issued = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: nil, appVersion: nil, lifetime: -1)
        #expect(try accounts.grant(token: issued.token) == nil)
    }

    @Test("Suspension is stored and reported on the grant")
    func suspension() throws {
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let issued = try accounts.issueToken(userId: ana.id, deviceId: "d", platform: nil, appVersion: nil, lifetime: 60)
        try accounts.setSuspended(username: "ana", true)
        #expect(try accounts.grant(token: issued.token)?.user.suspended == true)
        #expect(throws: AccountError.unknownUser("nobody")) { try accounts.setSuspended(username: "nobody", true) }
    }
}

@Suite("Settings in PostgreSQL")
struct SettingsStoreTests {
    @Test("Defaults apply until set; an update reports old and new values of changed keys only")
    func settingsRoundTrip() throws {
        let database = try StorageDatabase.migrated()
        let store = PostgresSettingsStore(database: database)
        #expect(try store.current() == ServerSettings())
        var changed = ServerSettings()
        changed.minSupportedAppVersion = "2.4.0"
        changed.hardMinimumAppVersion = "1.9.0"
        let changes = try store.update(changed, by: nil)
        #expect(changes == [
            SettingChange(key: "hardMinimumAppVersion", old: "null", new: "\"1.9.0\""),
            SettingChange(key: "minSupportedAppVersion", old: "\"2.0.0\"", new: "\"2.4.0\""),
        ])
        let fresh = PostgresSettingsStore(database: database)
        #expect(try fresh.current() == changed)
        changed.hardMinimumAppVersion = nil
        #expect(try fresh.update(changed, by: nil).map(\.key) == ["hardMinimumAppVersion"])
        #expect(try PostgresSettingsStore(database: database).current().hardMinimumAppVersion == nil)
        #expect(try fresh.update(changed, by: nil).isEmpty)
    }

    @Test("A secret is generated once and then stable")
    func secrets() throws {
        let secrets = SecretStore(database: try StorageDatabase.migrated())
        let first = try secrets.secret(named: "cursor")
        #expect(first.count == 32)
        #expect(try secrets.secret(named: "cursor") == first)
        #expect(try secrets.secret(named: "csrf") != first)
    }
}
