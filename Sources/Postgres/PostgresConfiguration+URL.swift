import Foundation

extension PostgresConfiguration {
    /// Parses a libpq-style URL: `postgres://user:password@host:port/database?key=value&…`.
    ///
    /// Both `postgres://` and `postgresql://` are accepted; every part is percent-decoded. A host that
    /// is an absolute path (`%2Frun%2Fpostgresql`), or a `host=/path` query parameter, selects a Unix
    /// socket directory. Other query parameters (`sslmode`, `application_name`, …) are kept as libpq keywords.
    ///
    /// - Throws: `PostgresError` with code `.invalidConfiguration` when the URL is malformed.
    public init(url: String) throws {
        guard let schemeEnd = url.range(of: "://"),
            ["postgres", "postgresql"].contains(url[..<schemeEnd.lowerBound].lowercased())
        else {
            throw PostgresError.invalidConfiguration("a database URL must start with postgres:// or postgresql://")
        }
        var rest = Substring(url[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var userInfo: Substring = ""
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        let (user, password) = try Self.splitUserInfo(userInfo)
        let (host, port) = try Self.splitHostPort(rest)
        let database = try Self.percentDecoded(path)
        self.init(
            host: host.isEmpty ? "localhost" : host,
            port: port ?? 5432,
            user: user.isEmpty ? "postgres" : user,
            password: password,
            database: database.isEmpty ? (user.isEmpty ? "postgres" : user) : database
        )
        try applyQuery(query)
        if self.host.hasPrefix("/") {
            unixSocketDirectory = self.host
            self.host = "localhost"
        }
    }

    private static func splitUserInfo(_ info: Substring) throws -> (user: String, password: String?) {
        guard let colon = info.firstIndex(of: ":") else { return (try percentDecoded(info), nil) }
        return (try percentDecoded(info[..<colon]), try percentDecoded(info[info.index(after: colon)...]))
    }

    private static func splitHostPort(_ text: Substring) throws -> (host: String, port: Int?) {
        var hostPart = text
        var portPart: Substring?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            // An IPv6 literal: `[::1]:5432`.
            hostPart = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            portPart = after.hasPrefix(":") ? after.dropFirst() : nil
        } else if let colon = text.lastIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let portPart, !portPart.isEmpty else { return (try percentDecoded(hostPart), nil) }
        guard let port = Int(portPart), (1...65535).contains(port) else {
            throw PostgresError.invalidConfiguration("the database URL has an invalid port")
        }
        return (try percentDecoded(hostPart), port)
    }

    private mutating func applyQuery(_ query: Substring) throws {
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try Self.percentDecoded(parts[0])
            let value = try Self.percentDecoded(parts.count > 1 ? parts[1] : "")
            switch key {
            case "host": host = value
            case "port":
                guard let number = Int(value) else { throw PostgresError.invalidConfiguration("the database URL has an invalid port") }
                port = number
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            default: parameters[key] = value
            }
        }
    }

    /// Decodes `%XX` escapes as UTF-8 (a `+` stays a plus, as in libpq).
    static func percentDecoded(_ text: Substring) throws -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw PostgresError.invalidConfiguration("the database URL has an invalid percent escape")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw PostgresError.invalidConfiguration("the database URL decodes to invalid UTF-8")
        }
        return decoded
    }
}

/// The value of one hexadecimal digit, or nil.
func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
