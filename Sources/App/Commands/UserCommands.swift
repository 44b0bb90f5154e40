import Cryptography
import Foundation
import Storage
import Support
import SyncEngine
import SyncProtocol

/// `fieldsync user add`: creates a user (and its team).
struct UserAddCommand: Command {
    let path = ["user", "add"]
    let summary = "create a user (prompts for the password on a terminal)"
    let valueOptions: Set<String> = ["username", "role", "team", "password", "data-dir"]
    let usage = """
        Usage: fieldsync user add --username U --role field|supervisor|dispatcher|admin
                                  [--team T] [--password P] [--data-dir ./.fieldsync]

        Creates a user. Works whether or not the server is running: it reaches the same
        database (the embedded cluster of --data-dir, or DATABASE_URL). --team creates the
        team when missing; a team's id is its name. Without --password the password is
        asked for on a terminal, or read from the first line of standard input.

        Options:
          --username U       login name: 1-64 letters, digits, . _ -
          --role R           field, supervisor, dispatcher or admin
          --team T           team the user belongs to
          --password P       password (at least 8 characters)
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        guard let username = arguments.value("username") else { throw CommandError("--username is required") }
        guard let roleName = arguments.value("role"), let role = Role(rawValue: roleName) else {
            throw CommandError("--role must be one of field, supervisor, dispatcher, admin")
        }
        let password = try arguments.value("password") ?? PasswordInput.read(prompt: "Password for \(username): ")
        guard password.count >= 8 else { throw CommandError("the password must have at least 8 characters") }
        let user = try CommandDatabase.with(arguments, environment) { core in
            try core.accounts.createUser(
                username: username, role: role, teamId: arguments.value("team"), passwordHash: try core.passwords.hash(password))
        }
        print("Created \(user.role.rawValue) \(user.username) (id \(user.id)\(user.teamId.map { ", team \($0)" } ?? "")).")
        return 0
    }
}

/// `fieldsync user list`.
struct UserListCommand: Command {
    let path = ["user", "list"]
    let summary = "list users"
    let valueOptions: Set<String> = ["data-dir"]
    let usage = """
        Usage: fieldsync user list [--data-dir ./.fieldsync]

        Lists every user with role, team and whether the account is suspended.

        Options:
        \(CommonHelp.dataDir)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let users = try CommandDatabase.with(arguments, environment) { try $0.accounts.listUsers() }
        let rows =
            [["USERNAME", "ROLE", "TEAM", "STATUS", "ID"]]
            + users.map { [$0.username, $0.role.rawValue, $0.teamId ?? "-", $0.suspended ? "suspended" : "active", $0.id] }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print(row.enumerated().map { $1.padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined())
        }
        return 0
    }
}

/// `fieldsync user suspend U` and `fieldsync user reactivate U`.
struct UserSuspendCommand: Command {
    let suspend: Bool
    var path: [String] { ["user", suspend ? "suspend" : "reactivate"] }
    var summary: String { suspend ? "suspend a user (their devices get 403 on the next call)" : "reactivate a suspended user" }
    let valueOptions: Set<String> = ["data-dir"]
    var usage: String {
        """
        Usage: fieldsync user \(path[1]) USERNAME [--data-dir ./.fieldsync]

        \(suspend ? "Suspends the account: its tokens stay stored but every call answers 403 ACCOUNT_SUSPENDED." : "Lifts a suspension.")

        Options:
        \(CommonHelp.dataDir)
        """
    }

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CommandError("name exactly one user\n\n\(usage)") }
        let user = try CommandDatabase.with(arguments, environment) {
            try $0.accounts.setSuspended(username: arguments.positionals[0], suspend)
        }
        print("\(user.username) is now \(user.suspended ? "suspended" : "active").")
        return 0
    }
}

/// Reads a password without echo on a terminal, or a line from piped input.
enum PasswordInput {
    static func read(prompt: String) throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            guard let raw = getpass(prompt) else { throw CommandError("no password entered") }
            return String(cString: raw)
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandError("--password is required when standard input is not a terminal and gives no line")
        }
        return line
    }
}
