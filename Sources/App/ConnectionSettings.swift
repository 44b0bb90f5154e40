public import Foundation
import Support

/// How the HTTP server guards its connections and its body spool against floods and slow clients.
/// Every field has a `FIELDSYNC_*` variable; docs/deploy.md explains when to change them.
public struct ConnectionSettings: Sendable {
    /// Connections open at once (`FIELDSYNC_MAX_CONNECTIONS`). Default 1000.
    public var limit = 1000
    /// Connections one client address may hold (`FIELDSYNC_MAX_CONNECTIONS_PER_ADDRESS`, 0 for none);
    /// trusted proxies are exempt. Default 64.
    public var perAddress = 64
    /// Connections kept for the back-office: once only these are free, device API requests are
    /// answered 503 `SERVER_BUSY` and their connection closed (`FIELDSYNC_RESERVED_CONNECTIONS`). Default 100.
    public var reserved = 100
    /// Seconds to send a request head (`FIELDSYNC_HEADER_TIMEOUT`). Default 30.
    public var headerTimeoutSeconds = 30
    /// Seconds to send a request body once its head is in (`FIELDSYNC_BODY_TIMEOUT`). Default 300.
    public var bodyTimeoutSeconds = 300
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client, for login
    /// throttling and the per-address limit (`FIELDSYNC_TRUSTED_PROXIES`, comma-separated). Default none.
    public var trustedProxies: Set<String> = []
    /// Where large request bodies (chunks, photos) are written while they arrive
    /// (`FIELDSYNC_SPOOL_DIR`); when unset, a folder of the system temp directory unique to
    /// the data folder (`AppConfiguration.spoolDirectory`).
    public var spoolDirectory: URL?
    /// Bytes of bodies spooled at once (`FIELDSYNC_SPOOL_BYTES`); past it uploads get 503 `SERVER_BUSY`. Default 512 MiB.
    public var spoolBytes = 512 << 20
    /// The same for one signed-in user, or one client address before sign-in
    /// (`FIELDSYNC_SPOOL_BYTES_PER_ADDRESS`). Default 64 MiB.
    public var spoolBytesPerAddress = 64 << 20

    public init() {}

    /// Reads the variables over the defaults.
    /// - Throws: `ConfigurationError` naming the variable.
    static func load(_ environment: Environment) throws -> ConnectionSettings {
        var settings = ConnectionSettings()
        let counts: [(String, WritableKeyPath<ConnectionSettings, Int>, ClosedRange<Int>)] = [
            ("FIELDSYNC_MAX_CONNECTIONS", \.limit, 1...1_000_000), ("FIELDSYNC_MAX_CONNECTIONS_PER_ADDRESS", \.perAddress, 0...1_000_000),
            ("FIELDSYNC_RESERVED_CONNECTIONS", \.reserved, 0...1_000_000), ("FIELDSYNC_HEADER_TIMEOUT", \.headerTimeoutSeconds, 1...86_400),
            ("FIELDSYNC_BODY_TIMEOUT", \.bodyTimeoutSeconds, 1...86_400), ("FIELDSYNC_SPOOL_BYTES", \.spoolBytes, 1...Int(Int32.max) << 8),
            ("FIELDSYNC_SPOOL_BYTES_PER_ADDRESS", \.spoolBytesPerAddress, 1...Int(Int32.max) << 8),
        ]
        for (name, keyPath, range) in counts {
            guard let value = try environment.integer(name) else { continue }
            guard range.contains(value) else { throw ConfigurationError("\(name) must be \(range.lowerBound)-\(range.upperBound), got \(value)") }
            settings[keyPath: keyPath] = value
        }
        guard settings.reserved < settings.limit else {
            throw ConfigurationError("FIELDSYNC_RESERVED_CONNECTIONS must be below FIELDSYNC_MAX_CONNECTIONS")
        }
        settings.spoolDirectory = environment["FIELDSYNC_SPOOL_DIR"].map { URL(fileURLWithPath: $0) }
        if let list = environment["FIELDSYNC_TRUSTED_PROXIES"] {
            let addresses = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for address in addresses where !isIPAddress(address) {
                throw ConfigurationError("FIELDSYNC_TRUSTED_PROXIES: \"\(address)\" is not an IP address")
            }
            settings.trustedProxies = Set(addresses)
        }
        return settings
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
