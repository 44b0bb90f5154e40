public import Foundation

/// Runs the built `fieldsync` executable as a subprocess, as an operator would.
///
/// ```swift
/// let output = try FieldSyncCLI.run(["user", "list"], environment: ["DATABASE_URL": server.databaseURL])
/// #expect(output.status == 0)
/// #expect(output.standardOutput.contains("admin"))
/// ```
public enum FieldSyncCLI {
    /// What a finished run printed and returned.
    public struct Output: Sendable, CustomStringConvertible {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String

        public var description: String { "exit \(status)\nstdout:\n\(standardOutput)\nstderr:\n\(standardError)" }
    }

    /// The executable: `FIELDSYNC_EXECUTABLE`, else `fieldsync` in the build products folder
    /// that holds the running test bundle (`swift test` builds it alongside the tests).
    /// - Throws: `TestServerError` naming the folders searched when it is not there.
    public static func executableURL() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["FIELDSYNC_EXECUTABLE"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        var folders = Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
        folders.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent("fieldsync")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw TestServerError(
            "no fieldsync executable in \(folders.map(\.path)); build it (swift build) or set FIELDSYNC_EXECUTABLE")
    }

    /// Runs `fieldsync` with `arguments` and waits for it to exit.
    /// - Parameters:
    ///   - environment: added to a clean environment: the caller's, without `DATABASE_URL`
    ///     and `FIELDSYNC_*`, plus test-speed password hashing and the resources folder.
    ///   - standardInput: text piped to the process (its standard input is empty otherwise).
    ///   - timeout: the process is terminated, and this throws, when it runs longer.
    /// - Throws: `TestServerError` when the executable is missing or times out.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil, timeout: TimeInterval = 120
    ) throws -> Output {
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        process.environment = try childEnvironment(adding: environment)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Files rather than pipes: nothing can fill up and block the child while this waits.
        let stdout = folder.appendingPathComponent("stdout"), stderr = folder.appendingPathComponent("stderr")
        let stdin = folder.appendingPathComponent("stdin")
        for file in [stdout, stderr] { try Data().write(to: file) }
        try Data((standardInput ?? "").utf8).write(to: stdin)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = try FileHandle(forReadingFrom: stdin)
        try process.run()
        try wait(for: process, timeout: timeout, arguments: arguments)
        return Output(
            status: process.terminationStatus, standardOutput: try String(contentsOf: stdout, encoding: .utf8),
            standardError: try String(contentsOf: stderr, encoding: .utf8))
    }

    private static func wait(for process: Process, timeout: TimeInterval, arguments: [String]) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                process.waitUntilExit()
                throw TestServerError("fieldsync \(arguments.joined(separator: " ")) ran longer than \(timeout) s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    private static func childEnvironment(adding extra: [String: String]) throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            name != "DATABASE_URL" && !name.hasPrefix("FIELDSYNC_")
        }
        environment["FIELDSYNC_PASSWORD_ITERATIONS"] = String(TestServer.passwordIterations)
        environment["FIELDSYNC_RESOURCES"] = try TestResources.directory().path
        environment.merge(extra) { _, new in new }
        return environment
    }
}
