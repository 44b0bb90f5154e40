/// SQL text with `$n` placeholders and the text values bound to them.
///
/// Interpolated values become parameters, never SQL text; identifiers or fragments the code itself
/// chooses go in with `\(unescaped:)`:
/// ```swift
/// let query: PostgresQuery = "SELECT name FROM \(unescaped: table) WHERE id = \(id) AND deleted = \(false)"
/// // sql: "SELECT name FROM devices WHERE id = $1 AND deleted = $2", binds: [id text, "false"]
/// ```
/// Statements assembled at run time (multi-row `VALUES` lists) use `init(_:binds:)`.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var sql: String
    public var binds: [String?]
    /// Whether the server plans the statement with its values on every run instead of
    /// preparing it once per connection; see ``plannedPerRun()``.
    public var plansPerRun = false

    /// A statement whose `$n` placeholders are filled from `binds` (`binds[0]` is `$1`).
    public init(_ sql: String, binds: [String?] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// The SQL text only: binds may hold user data.
    public var description: String { sql }

    /// This statement, planned afresh with its values on every run (an unnamed statement)
    /// instead of prepared once per connection.
    ///
    /// For lookups whose best plan depends on how large a table is: after five runs a prepared
    /// statement may settle on a generic plan, and one settled while the table was nearly empty
    /// (a fresh database) keeps scanning it whole as it grows, until the next ANALYZE.
    public func plannedPerRun() -> PostgresQuery {
        var copy = self
        copy.plansPerRun = true
        return copy
    }

    /// Builds the SQL and binds of an interpolated query.
    public struct StringInterpolation: StringInterpolationProtocol {
        // Inlinable appends (below) let callers specialize them: batch inserts bind arrays of
        // hundreds of values, which the unspecialized generic code converts several times slower.
        @usableFromInline var sql = ""
        @usableFromInline var binds: [String?] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// Binds a value as the next `$n` parameter.
        @inlinable
        public mutating func appendInterpolation(_ value: some PostgresEncodable) {
            binds.append(value.postgresText)
            sql += "$\(binds.count)"
        }

        /// Binds an optional value; nil becomes NULL. (Spelled out so optionals interpolate without a warning.)
        @inlinable
        public mutating func appendInterpolation(_ value: (some PostgresEncodable)?) {
            binds.append(value?.postgresText)
            sql += "$\(binds.count)"
        }

        /// Splices trusted SQL text (an identifier or fragment chosen by code, never user input).
        public mutating func appendInterpolation(unescaped fragment: String) {
            sql += fragment
        }
    }
}
