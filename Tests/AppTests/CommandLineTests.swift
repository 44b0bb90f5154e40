import App
import AppTesting
import Foundation
import PostgresTesting
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// The built `fieldsync` executable, run as a subprocess against test databases.
@Suite("fieldsync command line")
struct CommandLineTests {
    @Test("user add works on a database no server runs on; a server started later accepts the login")
    func userAddWithoutServer() async throws {
        let database = try TestDatabase.configuration()
        let environment = ["DATABASE_URL": DatabaseURL.string(for: database)]

        let added = try await FieldSyncCLI.run(
            ["user", "add", "--username", "ana", "--role", "field", "--team", "north", "--password", "secret-pass"],
            environment: environment)

        #expect(added.status == 0, "\(added)")
        #expect(added.standardOutput.contains("Created field ana"))
        let listed = try await FieldSyncCLI.run(["user", "list"], environment: environment)
        #expect(listed.status == 0, "\(listed)")
        #expect(Self.row(of: "ana", in: listed.standardOutput) == ["ana", "field", "north", "active"])
        let server = try await TestServer.start(database: database)
        defer { server.stop() }
        #expect(try await server.login(username: "ana", password: "secret-pass").isEmpty == false)
    }

    @Test("user add works beside a running server, which accepts the login at once")
    func userAddWithServer() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let environment = ["DATABASE_URL": server.databaseURL]

        // Without --password, the password is the first line of standard input.
        let added = try await FieldSyncCLI.run(
            ["user", "add", "--username", "Disp.One", "--role", "dispatcher"], environment: environment, standardInput: "piped-pass\n")

        #expect(added.status == 0, "\(added)")
        #expect(try await server.login(username: "disp.one", password: "piped-pass").isEmpty == false)
        let listed = try await FieldSyncCLI.run(["user", "list"], environment: environment)
        #expect(Self.row(of: "admin", in: listed.standardOutput) == ["admin", "admin", "-", "active"])
        #expect(Self.row(of: "Disp.One", in: listed.standardOutput) == ["Disp.One", "dispatcher", "-", "active"])
    }

    @Test("user add refuses a taken name, an unknown role and a short password, exiting 1 with a message")
    func userAddErrors() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let environment = ["DATABASE_URL": server.databaseURL]
        let cases: [([String], String)] = [
            (["--username", "ADMIN", "--role", "admin", "--password", "long-enough"], "already taken"),
            (["--username", "bo", "--role", "boss", "--password", "long-enough"], "--role must be one of"),
            (["--username", "bo", "--role", "field", "--password", "short"], "at least 8 characters"),
            (["--role", "field", "--password", "long-enough"], "--username is required"),
        ]
        for (arguments, message) in cases {
            let output = try await FieldSyncCLI.run(["user", "add"] + arguments, environment: environment)
            #expect(output.status == 1, "\(output)")
            #expect(output.standardError.contains(message), "\(output)")
        }
        #expect(try server.core.accounts.listUsers().map(\.username) == ["admin"])
    }

    @Test("user suspend and reactivate from another process reach a running server's cached device")
    func suspendFromAnotherProcess() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (user, token) = try await server.makeDevice()
        let environment = ["DATABASE_URL": server.databaseURL]
        #expect(try await server.client.get("/v1/config", token: token).status == 200)

        let suspended = try await FieldSyncCLI.run(["user", "suspend", user.username], environment: environment)

        #expect(suspended.status == 0, "\(suspended)")
        #expect(suspended.standardOutput.contains("\(user.username) is now suspended"))
        let denied = try await DeviceTokenTests.status(403, of: server.client, token: token, before: .now + .seconds(5))
        #expect(denied?.errorCode == "ACCOUNT_SUSPENDED")
        let listed = try await FieldSyncCLI.run(["user", "list"], environment: environment)
        #expect(Self.row(of: user.username, in: listed.standardOutput)?[3] == "suspended")
        #expect(try await FieldSyncCLI.run(["user", "reactivate", user.username], environment: environment).status == 0)
        #expect(try await DeviceTokenTests.status(401, of: server.client, token: token, before: .now + .seconds(5)) != nil, "it signs in again")
        let unknown = try await FieldSyncCLI.run(["user", "suspend", "nobody"], environment: environment)
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no user named \"nobody\""))
    }

    @Test("serve prints the first admin's creation at once, serves, and stops cleanly on SIGTERM")
    func serveLifecycle() async throws {
        let database = try TestDatabase.configuration()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-serve-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let serve = try FieldSyncCLI.launch(
            ["serve", "--port", "0", "--data-dir", dataDirectory.path],
            environment: ["DATABASE_URL": DatabaseURL.string(for: database), "FIELDSYNC_ADMIN_PASSWORD": "first-admin-pass"])

        let port = try await serve.listeningPort()
        // Standard output is a file here, as under a service manager: the line must not sit in a buffer.
        #expect(serve.standardOutput.contains("Created the first admin account"), "\(serve.standardOutput)")
        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(port)/")!)
        #expect(try await client.get("/v1/health").status == 200)
        let login = try await client.post("/v1/auth/token", json: TokenRequest(username: "admin", password: "first-admin-pass", deviceId: "d1"))
        #expect(login.status == 200)

        serve.signal(SIGTERM)
        let output = try await serve.wait(timeout: .seconds(30))
        #expect(output.status == 0, "\(output)")
        #expect(output.standardError.contains("FieldSync shutting down"))
        #expect(!output.standardError.contains("Demo mode"), "no demo unless asked")
    }

    @Test("user add reaches the embedded cluster of --data-dir, stopped or serving, and leaves a serving one running")
    func userAddEmbedded() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("fsync-\(UUID().uuidString.prefix(6))")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let dataDir = ["--data-dir", dataDirectory.path]

        let offline = try await FieldSyncCLI.run(["user", "add", "--username", "ana", "--role", "field", "--password", "ana-password"] + dataDir)
        #expect(offline.status == 0, "\(offline)")
        let serve = try FieldSyncCLI.launch(["serve", "--port", "0"] + dataDir)
        let port = try await serve.listeningPort()
        let online = try await FieldSyncCLI.run(["user", "add", "--username", "bo", "--role", "supervisor", "--password", "bo-password"] + dataDir)
        #expect(online.status == 0, "\(online)")

        let client = TestClient(baseURL: URL(string: "http://127.0.0.1:\(port)/")!)
        for (username, password) in [("ana", "ana-password"), ("bo", "bo-password")] {
            let login = try await client.post(
                "/v1/auth/token", json: TokenRequest(username: username, password: password, deviceId: "d1-\(username)"))
            #expect(login.status == 200, "\(username): \(login)")
        }
        serve.signal(SIGTERM)
        #expect(try await serve.wait(timeout: .seconds(60)).status == 0)
        let postmaster = dataDirectory.appendingPathComponent("postgres/postmaster.pid").path
        #expect(!FileManager.default.fileExists(atPath: postmaster), "serve stops the cluster it started")
    }

    @Test("--help of every command exits 0 and prints its usage", arguments: CommandLineTool.allCommands.map(\.path))
    func help(path: [String]) async throws {
        let output = try await FieldSyncCLI.run(path + ["--help"])

        #expect(output.status == 0, "\(output)")
        #expect(output.standardOutput.hasPrefix("Usage: fieldsync \(path.joined(separator: " "))"), "\(output)")
    }

    @Test("fieldsync --help lists every command")
    func overview() async throws {
        let output = try await FieldSyncCLI.run(["--help"])

        #expect(output.status == 0)
        for command in CommandLineTool.allCommands {
            #expect(output.standardOutput.contains("  \(command.path.joined(separator: " "))  "), "\(command.path)")
        }
    }

    @Test(
        "An unknown option, or one missing its value, exits 64 naming it, with the usage",
        arguments: [["user", "add", "--bogus"], ["user", "list", "--port", "1"], ["serve", "--no-such-flag"], ["migrate", "--data-dir"]])
    func unknownOption(arguments: [String]) async throws {
        let output = try await FieldSyncCLI.run(arguments)

        #expect(output.status == 64, "\(output)")
        #expect(output.standardError.hasPrefix("fieldsync: "), "\(output)")
        #expect(output.standardError.contains(arguments.first { $0.hasPrefix("--") }!), "\(output)")
        #expect(output.standardError.contains("Usage: fieldsync \(arguments.prefix(while: { !$0.hasPrefix("--") }).joined(separator: " "))"))
    }

    @Test(
        "An unknown command exits 64, naming it and listing the commands on standard error",
        arguments: [(["frobnicate", "--now"], "frobnicate"), (["user", "frob"], "user frob"), (["--version"], "--version")])
    func unknownCommand(arguments: [String], named: String) async throws {
        let output = try await FieldSyncCLI.run(arguments)

        #expect(output.status == 64)
        #expect(output.standardOutput.isEmpty)
        #expect(output.standardError.hasPrefix("fieldsync: unknown command \"\(named)\""), "\(output)")
        #expect(output.standardError.contains("Commands:"))
    }

    /// User name, role, team and status of the `user list` row for `username` (the id, last, varies).
    static func row(of username: String, in listing: String) -> [String]? {
        listing.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first { $0.first == username }?.dropLast()
    }
}
