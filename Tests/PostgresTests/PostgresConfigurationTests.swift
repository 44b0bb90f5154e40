import Postgres
import Testing

@Suite("PostgresConfiguration")
struct PostgresConfigurationTests {
    @Test("parses every part of a URL and percent-decodes credentials")
    func parsesFullURL() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://field%20user:p%40ss%3Aw%2Frd@db.example.com:6543/sync%5Fdb?sslmode=require&application_name=fs")
        #expect(configuration.user == "field user")
        #expect(configuration.password == "p@ss:w/rd")
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6543)
        #expect(configuration.database == "sync_db")
        #expect(configuration.parameters == ["sslmode": "require", "application_name": "fs"])
        #expect(configuration.unixSocketDirectory == nil)
    }

    @Test("fills in libpq's defaults for missing parts")
    func appliesDefaults() throws {
        let configuration = try PostgresConfiguration(url: "postgresql://app@localhost")
        #expect(configuration.port == 5432)
        #expect(configuration.database == "app")
        #expect(configuration.password == nil)
        let bare = try PostgresConfiguration(url: "postgres://")
        #expect(bare.host == "localhost" && bare.user == "postgres" && bare.database == "postgres")
    }

    @Test("reads IPv6 hosts and Unix socket directories")
    func parsesHostForms() throws {
        let ipv6 = try PostgresConfiguration(url: "postgres://u@[::1]:5433/d")
        #expect(ipv6.host == "::1" && ipv6.port == 5433)
        let socket = try PostgresConfiguration(url: "postgres://u@%2Fvar%2Frun%2Fpostgresql/d")
        #expect(socket.unixSocketDirectory == "/var/run/postgresql")
        let queryHost = try PostgresConfiguration(url: "postgres://u@/d?host=/tmp/sockets&port=7000")
        #expect(queryHost.unixSocketDirectory == "/tmp/sockets" && queryHost.port == 7000)
    }

    @Test(
        "rejects a wrong scheme, a bad port and a broken escape",
        arguments: [
            "mysql://u@h/d", "postgres://u@h:99999/d", "postgres://u@h:abc/d", "postgres://u:%zz@h/d",
        ])
    func rejectsMalformedURLs(url: String) {
        let error = #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("never shows the password in its description")
    func hidesPassword() throws {
        let configuration = try PostgresConfiguration(url: "postgres://u:s3cret-value@h/d?password=other-secret")
        #expect(!configuration.description.contains("s3cret-value"))
        #expect(!configuration.description.contains("other-secret"))
        #expect(configuration.description.contains("u@h:5432/d"))
    }
}
