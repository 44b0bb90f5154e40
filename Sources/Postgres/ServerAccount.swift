import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the PostgreSQL programs, as the unprivileged `postgres` account when this process is root.
///
/// `initdb` and `postgres` refuse to run as root (a compromised server must not own the machine),
/// so a root process (a container, CI) hands the cluster's files to `postgres` and runs the tools
/// through `runuser`.
struct ServerAccount: Sendable {
    static let accountName = "postgres"

    /// The account to switch to, or nil when already unprivileged.
    private let owner: (uid: uid_t, gid: gid_t)?
    private let runuser: String?

    /// - Throws: `PostgresError(.clusterUnavailable)` when running as root without a `postgres`
    ///   account or `runuser`.
    static func current() throws -> ServerAccount {
        guard geteuid() == 0 else { return ServerAccount(owner: nil, runuser: nil) }
        guard let entry = getpwnam(accountName) else {
            throw unavailable(
                "PostgreSQL refuses to run as root and there is no '\(accountName)' account to run it as; "
                    + "install the Debian package \"postgresql\" (which creates it) or run FieldSync as an unprivileged user")
        }
        guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first(where: FileManager.default.isExecutableFile)
        else { throw unavailable("running as root needs runuser (Debian package \"util-linux\") to start PostgreSQL as '\(accountName)'") }
        return ServerAccount(owner: (entry.pointee.pw_uid, entry.pointee.pw_gid), runuser: runuser)
    }

    /// Creates a directory (mode 0700) owned by the account that will run the server.
    func createOwnedDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try handOver(url)
    }

    /// Gives a file or directory this process created to the account that runs the server.
    func handOver(_ url: URL) throws {
        if let owner, chown(url.path, owner.uid, owner.gid) != 0 {
            throw Self.unavailable("cannot hand \(url.path) to the '\(Self.accountName)' account (errno \(errno))")
        }
    }

    /// Runs a tool to completion and returns its combined output.
    /// - Throws: `PostgresError(.clusterUnavailable)` with the output when it exits non-zero.
    @discardableResult
    func run(_ tool: URL, _ arguments: [String]) throws -> String {
        let outcome =
            if let runuser {
                try ChildProcess.run(runuser, ["-u", Self.accountName, "--", tool.path] + arguments)
            } else {
                try ChildProcess.run(tool.path, arguments)
            }
        guard outcome.status == 0 else {
            let hint =
                runuser == nil
                ? "" : " (running as root: the cluster directory and its parents must be accessible to the '\(Self.accountName)' account)"
            throw Self.unavailable("\(tool.lastPathComponent) failed (exit \(outcome.status))\(hint): \(outcome.output.suffix(2000))")
        }
        return outcome.output
    }

    static func unavailable(_ message: String) -> PostgresError {
        PostgresError(code: .clusterUnavailable, message: message)
    }
}
