import Foundation
public import Support

/// A `fieldsync` subcommand: its words, its help text and what it does.
public protocol Command: Sendable {
    /// The words that select it, e.g. `["user", "add"]`.
    var path: [String] { get }
    /// One line for the command list.
    var summary: String { get }
    /// The full `--help` text.
    var usage: String { get }
    var valueOptions: Set<String> { get }
    var flagOptions: Set<String> { get }
    /// Runs the command; the returned value is the process exit status.
    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32
}

extension Command {
    public var flagOptions: Set<String> { ["help"] }
}

/// A failure the user can fix, printed without a stack of internals.
public struct CommandError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension CommandLineArguments {
    /// The whole number given for `--name`, or `fallback` when the option is absent.
    /// - Throws: `CommandError` when the value is not a number of at least `minimum`.
    package func number(_ name: String, _ fallback: Int, minimum: Int = 1) throws -> Int {
        guard let text = value(name) else { return fallback }
        guard let number = Int(text), number >= minimum else { throw CommandError("--\(name) must be a number of at least \(minimum)") }
        return number
    }
}

/// Options every database-reaching command shares.
enum CommonHelp {
    static let dataDir = """
          --data-dir DIR     data folder of the embedded PostgreSQL (default ./.fieldsync,
                             env FIELDSYNC_DATA_DIR); ignored when DATABASE_URL is set
        """
}
