public import Foundation

/// Read access to environment variables, injectable so configuration can be tested.
public struct Environment: Sendable {
    private let variables: [String: String]

    public init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// The value of `name`, with empty strings treated as unset.
    public subscript(name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    /// An integer variable; a present but malformed value is a configuration error.
    public func integer(_ name: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text) else { throw ConfigurationError("\(name) must be an integer, got \"\(text)\"") }
        return value
    }
}

/// A configuration value that cannot be used; the message names the setting.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
