import Cryptography
public import Foundation

extension AppConfiguration {
    /// Where large request bodies are written while they arrive: `FIELDSYNC_SPOOL_DIR`, else a
    /// `fieldsync-spool-<hash of the data folder's path>` folder in the system temp directory,
    /// off the database's volume and unique to this data folder (so its start sweep removes
    /// only this server's leftovers).
    public var spoolDirectory: URL {
        connections.spoolDirectory ?? Self.defaultSpoolDirectory(forDataDirectory: dataDirectory)
    }

    static func defaultSpoolDirectory(forDataDirectory dataDirectory: URL) -> URL {
        let path = dataDirectory.standardizedFileURL.path
        let name = "fieldsync-spool-" + SHA256.hash(Data(path.utf8)).hexString.prefix(16)
        return FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
    }
}
