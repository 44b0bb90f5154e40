/// How to reach a PostgreSQL server: host and port (or a Unix socket directory), credentials and database.
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgres://app:secret@db.internal:5432/fieldsync?sslmode=require")
/// let local = PostgresConfiguration(host: "127.0.0.1", port: 5432, user: "postgres", password: nil, database: "fieldsync")
/// ```
///
/// `description` never shows the password, so a configuration may be logged.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// When set, libpq connects through the socket `.s.PGSQL.<port>` in this directory instead of TCP.
    public var unixSocketDirectory: String?
    /// Further libpq connection keywords (`sslmode`, `application_name`, `connect_timeout`, …),
    /// for example taken from a URL's query string.
    public var parameters: [String: String]

    public init(
        host: String = "localhost",
        port: Int = 5432,
        user: String,
        password: String? = nil,
        database: String,
        unixSocketDirectory: String? = nil,
        parameters: [String: String] = [:]
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.unixSocketDirectory = unixSocketDirectory
        self.parameters = parameters
    }

    public var description: String {
        let target = unixSocketDirectory.map { "socket \($0)/.s.PGSQL.\(port)" } ?? "\(host):\(port)"
        let secret = password == nil ? "" : " password=***"
        let extra = parameters.keys.sorted().map { " \($0)=\($0 == "password" ? "***" : parameters[$0]!)" }.joined()
        return "postgres \(user)@\(target)/\(database)\(secret)\(extra)"
    }

    /// The same server and credentials, with another database.
    public func with(database: String) -> PostgresConfiguration {
        var copy = self
        copy.database = database
        return copy
    }

    /// The keyword/value pairs handed to `PQconnectdbParams`.
    ///
    /// Session settings pin the text formats the codecs rely on: ISO dates in UTC and hex `bytea`,
    /// whatever the server's defaults are. Connecting gives up after 10 seconds unless
    /// `parameters["connect_timeout"]` says otherwise.
    var connectionKeywords: [(String, String)] {
        var pairs: [(String, String)] = [
            ("host", unixSocketDirectory ?? host),
            ("port", String(port)),
            ("user", user),
            ("dbname", database),
            ("client_encoding", "UTF8"),
        ]
        if let password { pairs.append(("password", password)) }
        // Without a timeout libpq waits for the kernel to give up on an unreachable host (minutes).
        if parameters["connect_timeout"] == nil { pairs.append(("connect_timeout", "10")) }
        let pinned = "-c DateStyle=ISO,YMD -c TimeZone=UTC -c bytea_output=hex -c IntervalStyle=iso_8601"
        var options = pinned
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            if key == "options" { options += " " + value } else { pairs.append((key, value)) }
        }
        pairs.append(("options", options))
        return pairs
    }
}
