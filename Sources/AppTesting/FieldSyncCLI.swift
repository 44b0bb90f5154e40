public import Foundation

/// Runs the built `fieldsync` executable as a subprocess, as an operator would.
///
/// ```swift
/// let output = try await FieldSyncCLI.run(["user", "list"], environment: ["DATABASE_URL": server.databaseURL])
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
        _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil, timeout: Duration = .seconds(120)
    ) async throws -> Output {
        let running = try launch(arguments, environment: environment, standardInput: standardInput)
        return try await running.wait(timeout: timeout)
    }

    /// Starts `fieldsync` without waiting for it, e.g. `serve`.
    /// - Parameters: as `run`.
    /// - Throws: `TestServerError` when the executable is missing; what `Process.run()` throws.
    public static func launch(
        _ arguments: [String], environment: [String: String] = [:], standardInput: String? = nil
    ) throws
        -> RunningCommand
    {
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        process.environment = try childEnvironment(adding: environment)
        return try RunningCommand(process, arguments: arguments, standardInput: standardInput)
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

/// A `fieldsync` process started by `FieldSyncCLI.launch`. Its output goes to files (not
/// pipes, which could fill up and block it), readable while it runs.
public final class RunningCommand {
    private let process: Process
    private let arguments: [String]
    private let folder: URL

    init(_ process: Process, arguments: [String], standardInput: String?) throws {
        self.process = process
        self.arguments = arguments
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["stdout", "stderr"] { try Data().write(to: folder.appendingPathComponent(name)) }
        try Data((standardInput ?? "").utf8).write(to: folder.appendingPathComponent("stdin"))
        process.standardOutput = try FileHandle(forWritingTo: folder.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: folder.appendingPathComponent("stderr"))
        process.standardInput = try FileHandle(forReadingFrom: folder.appendingPathComponent("stdin"))
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the process wrote to standard output so far.
    public var standardOutput: String { read("stdout") }
    /// What the process wrote to standard error so far.
    public var standardError: String { read("stderr") }
    public var isRunning: Bool { process.isRunning }

    /// Sends a signal, e.g. `SIGTERM` to ask a server to stop.
    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the exit, polling without blocking a thread.
    /// - Throws: `TestServerError` after terminating the process when it runs longer than `timeout`.
    public func wait(timeout: Duration) async throws -> FieldSyncCLI.Output {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                process.waitUntilExit()
                throw TestServerError("fieldsync \(arguments.joined(separator: " ")) ran longer than \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return FieldSyncCLI.Output(status: process.terminationStatus, standardOutput: standardOutput, standardError: standardError)
    }

    /// The port of a `serve`'s "FieldSync listening on http://host:port" line, once it appears.
    /// - Throws: `TestServerError` with the log when the server exits or has not started within a minute.
    public func listeningPort() async throws -> Int {
        let found = try await eventually(within: .seconds(60), every: .milliseconds(50)) { () -> Int? in
            let line = standardError.split(separator: "\n").first { $0.contains("FieldSync listening on http://") }
            if let port = line?.split(separator: ":").last.flatMap({ Int($0) }) { return port }
            guard isRunning else { throw TestServerError("serve exited before listening:\n\(standardError)") }
            return nil
        }
        guard let found else { throw TestServerError("serve did not start:\n\(standardError)") }
        return found
    }

    private func read(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
