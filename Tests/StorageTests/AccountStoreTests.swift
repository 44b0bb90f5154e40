import Cryptography
import Foundation
import Postgres
import PostgresTesting
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// What only PostgreSQL's accounts do; the rules both stores keep are in the account store contract suite.
@Suite("Accounts in PostgreSQL")
struct AccountStoreTests {
    @Test("Tokens are stored hashed: the table never holds one in the clear")
    func tokensStoredHashed() throws {
        let database = try StorageDatabase.migrated()
        defer { database.shutdown() }
        let accounts = PostgresAccountStore(database: database)
        let ana = try accounts.createUser(username: "ana", role: .field, teamId: nil, passwordHash: "h")
        let issued = try accounts.issueToken(userId: ana.id, deviceId: "dev-1", platform: "ios", appVersion: "2.3.0", lifetime: 3600)
        let stored = try database.withConnection { try $0.query("SELECT token_hash FROM device_tokens")[0].decode(0, as: Data.self) }
        #expect(stored == SHA256.hash(Data(issued.token.utf8)))
        #expect(try accounts.listTokens(userId: ana.id).map(\.tokenId) == [stored.hexString])
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
        #expect(
            changes == [
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
