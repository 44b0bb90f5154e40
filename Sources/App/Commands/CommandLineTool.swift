import Foundation
import Support

/// Dispatches `fieldsync <command> …` to the matching `Command` and prints help.
public struct CommandLineTool: Sendable {
    public let commands: [any Command]

    public init(commands: [any Command] = CommandLineTool.allCommands) {
        self.commands = commands
    }

    public static let allCommands: [any Command] = [
        ServeCommand(), WorkerCommand(), MigrateCommand(),
        UserAddCommand(), UserListCommand(), UserSuspendCommand(suspend: true), UserSuspendCommand(suspend: false),
        BenchHTTPCommand(), BenchSyncCommand(), BenchUploadCommand(), BenchEventsCommand(), BenchWebCommand(),
    ]

    /// Runs the command named by `words`; returns the exit status.
    public func run(_ words: [String], environment: Environment = Environment()) -> Int32 {
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
        let width = commands.map { $0.path.joined(separator: " ").count }.max() ?? 0
        let lines = commands.map { command -> String in
            let name = command.path.joined(separator: " ")
            return "  \(name)\(String(repeating: " ", count: width - name.count + 3))\(command.summary)"
        }
        return """
            FieldSync — sync server and back-office for offline-first field apps.

            Usage: fieldsync <command> [options]   (fieldsync <command> --help for details)

            Commands:
            \(lines.joined(separator: "\n"))
            """
    }
}

/// Writes to standard error with the program name in front.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("fieldsync: \(message)\n".utf8))
}
