import Foundation

/// A `fieldsync-device` child process: one SDK device in its own process, which a test can
/// kill with SIGKILL at any instant. Its output goes to a file, readable while it runs.
final class DeviceProcess {
    private let process = Process()
    private let output: URL

    /// Starts `fieldsync-device` with `arguments`, writing `input` to its standard input.
    init(_ arguments: [String], input: String = "") throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("fieldsync-device-\(UUID().uuidString.prefix(8)).out")
        let inputFile = output.appendingPathExtension("in")
        try Data().write(to: output)
        try Data(input.utf8).write(to: inputFile)
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        try process.run()
        try? FileManager.default.removeItem(at: inputFile)
    }

    deinit {
        if process.isRunning { kill(SIGKILL) }
        try? FileManager.default.removeItem(at: output)
    }

    var isRunning: Bool { process.isRunning }

    /// Everything the process printed so far.
    var lines: [String] {
        ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Sends `signal` and waits for the process to end.
    func kill(_ signal: Int32) {
        Foundation.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// Waits for the exit, polling without blocking a thread.
    /// - Returns: the exit status.
    /// - Throws: after killing the process when it runs longer than `timeout`.
    func wait(timeout: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(SIGKILL)
                throw Failure("fieldsync-device ran longer than \(timeout):\n" + lines.suffix(20).joined(separator: "\n"))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// The executable, built next to the test bundle (`swift build --build-tests` builds it).
    private static func executable() throws -> URL {
        var folders = Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
        folders.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent("fieldsync-device")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure("no fieldsync-device executable in \(folders.map(\.path)); build it with swift build")
    }
}
