import Foundation

/// Where the PostgreSQL server programs (`initdb`, `pg_ctl`, `postgres`) are installed.
struct PostgresBinaries: Sendable {
    static let requiredTools = ["initdb", "pg_ctl", "postgres"]

    let directory: URL

    func tool(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    /// Finds the binaries through `pg_config --bindir`, then the highest `/usr/lib/postgresql/*/bin`
    /// (Debian's layout, where they are not on PATH), then PATH.
    /// - Throws: `PostgresError(.clusterUnavailable)` naming the package to install.
    static func locate() throws -> PostgresBinaries {
        try locate(in: [pgConfigBinDirectory()].compactMap { $0 } + debianBinDirectories() + pathDirectories())
    }

    /// The first of `candidates` that holds all three programs.
    static func locate(in candidates: [String]) throws -> PostgresBinaries {
        guard let directory = candidates.first(where: containsServer) else {
            throw PostgresError(
                code: .clusterUnavailable,
                message: "the PostgreSQL server programs (initdb, pg_ctl, postgres) were not found via pg_config --bindir, "
                    + "/usr/lib/postgresql/*/bin or PATH; install the Debian package \"postgresql\" (apt-get install postgresql), "
                    + "or set DATABASE_URL to use an existing server")
        }
        return PostgresBinaries(directory: URL(fileURLWithPath: directory))
    }

    private static func containsServer(_ directory: String) -> Bool {
        requiredTools.allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
    }

    private static func pgConfigBinDirectory() -> String? {
        guard let pgConfig = pathDirectories().map({ $0 + "/pg_config" }).first(where: FileManager.default.isExecutableFile) else {
            return nil
        }
        guard let outcome = try? ChildProcess.run(pgConfig, ["--bindir"]), outcome.status == 0 else { return nil }
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `/usr/lib/postgresql/<version>/bin`, highest version first.
    private static func debianBinDirectories() -> [String] {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap { name in Double(name).map { (version: $0, name: name) } }
            .sorted { $0.version > $1.version }
            .map { "\(root)/\($0.name)/bin" }
    }

    private static func pathDirectories() -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
    }
}
