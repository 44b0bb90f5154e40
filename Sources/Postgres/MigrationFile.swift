import Foundation

/// One forward-only migration script, `NNNN_name.sql`.
struct MigrationFile: Sendable, Equatable {
    var version: Int
    /// The file name without `.sql`, e.g. `0003_add_devices`; what `Migrator.migrate()` reports.
    var name: String
    var sql: String

    /// Reads every `.sql` file of `directory`, ordered by version.
    ///
    /// Other files (a README) are ignored. Numbers must start at 1 and have no gaps or duplicates,
    /// so a merge that renumbered nothing, or a file that was lost, is caught before anything runs.
    /// - Throws: `PostgresError(.invalidMigration)` naming the offending files.
    static func load(from directory: URL) throws -> [MigrationFile] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw invalid("cannot read the migrations directory \(directory.path): \(error.localizedDescription)")
        }
        let migrations = try entries.filter { $0.hasSuffix(".sql") }.map { fileName in
            let version = try version(of: fileName)
            let sql = try String(contentsOf: directory.appendingPathComponent(fileName), encoding: .utf8)
            return MigrationFile(version: version, name: String(fileName.dropLast(4)), sql: sql)
        }
        return try validated(migrations.sorted { ($0.version, $0.name) < ($1.version, $1.name) })
    }

    /// The number of a file named `NNNN_name.sql` (at least four digits, a name of letters, digits, `_` or `-`).
    static func version(of fileName: String) throws -> Int {
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { throw malformed(fileName) }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        let nameCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-"))
        guard digits.count >= 4, digits.allSatisfy(\.isASCII), let version = Int(digits), !name.isEmpty,
            name.unicodeScalars.allSatisfy({ $0.isASCII && nameCharacters.contains($0) })
        else { throw malformed(fileName) }
        return version
    }

    /// Checks that sorted versions run 1, 2, 3, … with no duplicate.
    static func validated(_ sorted: [MigrationFile]) throws -> [MigrationFile] {
        for (position, migration) in sorted.enumerated() {
            let expected = position + 1
            if migration.version == expected { continue }
            if position > 0, sorted[position - 1].version == migration.version {
                throw invalid("two migrations share number \(migration.version): \(sorted[position - 1].name).sql and \(migration.name).sql")
            }
            let previous = position > 0 ? " after \(sorted[position - 1].name).sql" : ""
            throw invalid("migration number \(expected) is missing\(previous); the next file is \(migration.name).sql")
        }
        return sorted
    }

    private static func malformed(_ fileName: String) -> PostgresError {
        invalid("migration file \(fileName) is not named NNNN_name.sql (four or more digits, an underscore, then letters, digits, _ or -)")
    }

    private static func invalid(_ message: String) -> PostgresError {
        PostgresError(code: .invalidMigration, message: message)
    }
}
