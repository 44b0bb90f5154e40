import Foundation
public import Postgres

/// Writes a `PostgresConfiguration` as the `DATABASE_URL` that `fieldsync` parses back into it.
public enum DatabaseURL {
    /// `postgres://user[:password]@host:port/database[?host=<socket dir>&key=value…]`, every
    /// part percent-encoded.
    public static func string(for configuration: PostgresConfiguration) -> String {
        var url = "postgres://" + encode(configuration.user)
        if let password = configuration.password { url += ":" + encode(password) }
        url += "@" + encode(configuration.host) + ":\(configuration.port)/" + encode(configuration.database)
        var query = configuration.parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        if let socket = configuration.unixSocketDirectory { query.insert((key: "host", value: socket), at: 0) }
        if !query.isEmpty { url += "?" + query.map { encode($0.key) + "=" + encode($0.value) }.joined(separator: "&") }
        return url
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986).
    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
