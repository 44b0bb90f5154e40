import Foundation
public import Support

/// Dispatches `fieldsync <command> …` to the matching `Command` and prints help.
public struct CommandLineTool: Sendable {
    public let commands: [any Command]
    /// The executable's name, at the head of the usage line and of every error message.
    let program: String
    /// The first line of the overview.
    let title: String
    /// Commands that another executable beside this one runs.
    let delegated: [DelegatedCommands]

    /// The `fieldsync` server's command line.
    public init(commands: [any Command] = CommandLineTool.allCommands) {
        self.commands = commands
        program = "fieldsync"
        title = "FieldSync — sync server and back-office for offline-first field apps."
        delegated = DelegatedCommands.tools
    }

    /// The command line of another FieldSync executable, e.g. `fieldsync-tools`.
    public init(program: String, title: String, commands: [any Command]) {
        self.commands = commands
        self.program = program
        self.title = title
        delegated = []
    }

    public static let allCommands: [any Command] = [
        ServeCommand(), WorkerCommand(), MigrateCommand(),
        UserAddCommand(), UserListCommand(), UserSuspendCommand(suspend: true), UserSuspendCommand(suspend: false),
    ]

    /// Runs the command named by `words`; returns the exit status.
    public func run(_ words: [String], environment: Environment = Environment()) -> Int32 {
        if let first = words.first, let other = delegated.first(where: { $0.word == first }) {
            do {
                try other.execute(words)
            } catch {
                printError("\(error)")
                return 1
            }
        }
        let matches = commands.filter { words.starts(with: $0.path) }
        guard let command = matches.max(by: { $0.path.count < $1.path.count }) else {
            if words.isEmpty || ["--help", "-h", "help"].contains(words[0]) {
                print(overview)
                return 0
            }
            let named = words.prefix { !$0.hasPrefix("-") }
            printError("unknown command \"\((named.isEmpty ? [words[0]] : named).joined(separator: " "))\"\n\n\(overview)")
            return 64
        }
        do {
            let arguments = try CommandLineArguments(
                Array(words.dropFirst(command.path.count)), valueOptions: command.valueOptions, flagOptions: command.flagOptions)
            if arguments.has("help") {
                print(command.usage)
                return 0
            }
            return try command.run(arguments, environment: environment)
        } catch let error as CommandLineArguments.ParseError {
            printError("\(error)\n\n\(command.usage)")
            return 64
        } catch {
            printError("\(error)")
            return 1
        }
    }

    var overview: String {
        let rows =
            commands.map { ($0.path.joined(separator: " "), $0.summary) } + delegated.map { ($0.isGroup ? "\($0.word) …" : $0.word, $0.summary) }
        let width = rows.map(\.0.count).max() ?? 0
        let lines = rows.map { name, summary in "  \(name)\(String(repeating: " ", count: width - name.count + 3))\(summary)" }
        return """
            \(title)

            Usage: \(program) <command> [options]   (\(program) <command> --help for details)

            Commands:
            \(lines.joined(separator: "\n"))
            """
    }

    /// Writes to standard error with the program name in front.
    private func printError(_ message: String) {
        FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
    }
}
