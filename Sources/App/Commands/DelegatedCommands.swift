import Foundation

/// Commands that another executable, installed beside `fieldsync`, runs for it: the
/// benchmarks, the fleet simulator and the link-shaping relay live in `fieldsync-tools`, so the
/// server binary links neither them nor the HTTP client and device SDK they drive it with. `fieldsync bench sync --batches 20` replaces itself with
/// `fieldsync-tools bench sync --batches 20`: same arguments, environment and exit status.
struct DelegatedCommands: Sendable {
    /// The executable's file name, looked for in the folder of the running one.
    let executable: String
    /// The first word of every command it runs for `fieldsync`.
    let word: String
    /// The overview's line for them.
    let summary: String
    /// Whether `word` only names a group (`bench`): alone, it shows the executable's overview.
    var isGroup = false

    static let tools = [
        DelegatedCommands(
            executable: "fieldsync-tools", word: "bench", summary: "benchmarks, run by fieldsync-tools (fieldsync bench --help lists them)",
            isGroup: true),
        DelegatedCommands(
            executable: "fieldsync-tools", word: "simulate",
            summary: "a fleet of SDK devices works a field day; the server is checked for loss (run by fieldsync-tools)"),
        DelegatedCommands(
            executable: "fieldsync-tools", word: "relay", summary: "a TCP relay that shapes a link: bandwidth, latency, cuts (run by fieldsync-tools)"
        ),
    ]

    /// Runs the executable in place of this process with `words` (`fieldsync bench` alone or
    /// with `--help` shows the executable's own overview); returns only by throwing.
    /// - Throws: `CommandError` when the executable is not beside this one or cannot start.
    func execute(_ words: [String]) throws -> Never {
        let path = try location().path
        let rest = words.dropFirst()
        let arguments = isGroup && (rest.isEmpty || rest == ["--help"] || rest == ["-h"]) ? ["--help"] : words
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        execv(path, argv)
        // execv returns only when it failed.
        throw CommandError("cannot run \(path): \(String(cString: strerror(errno)))")
    }

    /// The executable in the folder of the running one (symbolic links resolved, so a link
    /// to `fieldsync` on the PATH finds its real folder).
    func location() throws -> URL {
        guard let running = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
            throw CommandError("cannot tell where this executable is, to find \(executable) beside it")
        }
        let candidate = running.deletingLastPathComponent().appendingPathComponent(executable)
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw CommandError(
                """
                the \(word) commands are run by \(executable), which is not installed beside this executable \
                (no \(candidate.path)); build it with `swift build --product \(executable)` (make release builds both)
                """)
        }
        return candidate
    }
}
