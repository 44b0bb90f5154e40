/// Parsed command-line words: `--name value`, `--name=value`, bare `--flag`s and positionals.
///
/// Which options take a value is declared up front, so `--no-worker serve` is never
/// mistaken for an option named `no-worker` with the value `serve`.
public struct CommandLineArguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Parameters:
    ///   - words: the arguments after the executable name.
    ///   - valueOptions: option names (without `--`) that take a value.
    ///   - flagOptions: option names that take none.
    /// - Throws: `ParseError` for an unknown option or a missing value.
    public init(_ words: [String], valueOptions: Set<String>, flagOptions: Set<String> = ["help"]) throws {
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--"), word.count > 2 else {
                if word == "-h" { flags.insert("help") } else { positionals.append(word) }
                continue
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flagOptions.contains(name), inlineValue == nil {
                flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    values[name] = inlineValue
                } else if index < words.count {
                    values[name] = words[index]
                    index += 1
                } else {
                    throw ParseError(description: "option --\(name) needs a value")
                }
            } else {
                throw ParseError(description: "unknown option --\(name)")
            }
        }
    }

    public func value(_ name: String) -> String? { values[name] }
    public func has(_ flag: String) -> Bool { flags.contains(flag) }
}
