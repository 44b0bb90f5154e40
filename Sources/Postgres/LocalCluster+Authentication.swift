import Foundation
import Support

/// The embedded cluster trusts no local process: its superuser signs in with SCRAM and a
/// password generated at the first start, kept in `<directory>/postgres.password` (mode 0600,
/// readable only by the account FieldSync runs as).
///
/// Clusters made before this (`initdb --auth=trust`) are converted at their next start: the
/// password is set over the still-trusting connection, `pg_hba.conf` is rewritten for SCRAM
/// only and the server reloads it. A start interrupted half-way converts again next time,
/// since the test is the `trust` left in `pg_hba.conf`.
extension LocalCluster {
    var passwordFile: URL { directory.appendingPathComponent("postgres.password") }
    var hbaFile: URL { dataDirectory.appendingPathComponent("pg_hba.conf") }

    /// The superuser's password, created (mode 0600) when missing.
    /// - Throws: `PostgresError(.clusterUnavailable)` when the file cannot be read or written.
    func superuserPassword() throws -> String {
        if let existing = try? String(contentsOf: passwordFile, encoding: .utf8) {
            let password = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if !password.isEmpty { return password }
        }
        var generator = SystemRandomNumberGenerator()
        let password = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        try writePrivately(password + "\n", to: passwordFile)
        return password
    }

    /// `initdb` reads the password from a file the server account can read: a copy in the
    /// run directory (its own, mode 0700), removed once `initdb` is done.
    func withInitdbPasswordFile<T>(_ password: String, account: ServerAccount, _ body: (URL) throws -> T) throws -> T {
        let file = runDirectory.appendingPathComponent("initdb.password")
        try writePrivately(password + "\n", to: file)
        defer { unlink(file.path) }
        try account.handOver(file)
        return try body(file)
    }

    /// Whether `pg_hba.conf` still lets anyone in without a password.
    var trustsLocalProcesses: Bool {
        guard let text = try? String(contentsOf: hbaFile, encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.first?.hasPrefix("#") == false && fields.last == "trust"
        }
    }

    /// Sets the password over the trusting connection, then accepts SCRAM only.
    func convertToPasswordAuthentication(_ server: PostgresConfiguration, password: String) throws {
        logger.notice("securing the embedded PostgreSQL: password authentication from now on", metadata: ["db.directory": directory.path])
        let connection = try PostgresConnection(configuration: server, logger: logger)
        defer { connection.close() }
        // The password is hex, so quoting it as a literal is safe (ALTER ROLE takes no binds).
        try connection.executeScript("SET password_encryption = 'scram-sha-256'; ALTER ROLE postgres PASSWORD '\(password)'")
        try rewriteInPlace(hbaFile, with: Self.passwordOnlyRules)
        try connection.executeScript("SELECT pg_reload_conf()")
    }

    static let passwordOnlyRules = """
        # FieldSync's embedded cluster: every connection signs in with the superuser's password
        # (SCRAM), kept in the FieldSync data directory as postgres.password.
        local   all   all                  scram-sha-256
        host    all   all   127.0.0.1/32   scram-sha-256
        host    all   all   ::1/128        scram-sha-256

        """

    // MARK: - Files

    private func writePrivately(_ text: String, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ServerAccount.unavailable("cannot write \(url.path) (errno \(errno))") }
        defer { close(descriptor) }
        // An existing file keeps the mode it had: make sure it is private.
        fchmod(descriptor, 0o600)
        try write(text, to: descriptor, path: url.path)
    }

    /// Replaces a file's contents without replacing the file, so it keeps its owner (the server account).
    private func rewriteInPlace(_ url: URL, with text: String) throws {
        let descriptor = open(url.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerAccount.unavailable("cannot rewrite \(url.path) (errno \(errno))") }
        defer { close(descriptor) }
        try write(text, to: descriptor, path: url.path)
        fsync(descriptor)
    }

    private func write(_ text: String, to descriptor: Int32, path: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ServerAccount.unavailable("cannot write \(path) (errno \(errno))") }
            offset += written
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
