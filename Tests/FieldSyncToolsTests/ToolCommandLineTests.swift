import App
import AppTesting
import FieldSyncTools
import Foundation
import Testing

/// The tools run as an operator runs them: `fieldsync bench …`, which the built `fieldsync`
/// hands to the `fieldsync-tools` executable beside it.
@Suite("fieldsync-tools command line")
struct ToolCommandLineTests {
    @Test("--help of every tool command, asked of fieldsync, exits 0 and prints its usage", arguments: ToolCommands.all.map(\.path))
    func help(path: [String]) async throws {
        let output = try await FieldSyncCLI.run(path + ["--help"])

        #expect(output.status == 0, "\(output)")
        #expect(output.standardOutput.hasPrefix("Usage: fieldsync \(path.joined(separator: " "))"), "\(output)")
    }

    @Test("fieldsync bench --help lists every tool command; fieldsync --help says where they are")
    func overview() async throws {
        let tools = try await FieldSyncCLI.run(["bench", "--help"])
        let server = try await FieldSyncCLI.run(["--help"])

        #expect(tools.status == 0, "\(tools)")
        #expect(tools.standardOutput.contains("Usage: fieldsync-tools <command>"), "\(tools)")
        for command in ToolCommands.all {
            #expect(tools.standardOutput.contains("  \(command.path.joined(separator: " "))  "), "\(command.path)")
        }
        #expect(server.status == 0)
        #expect(server.standardOutput.contains("  bench …") && server.standardOutput.contains("benchmarks, run by fieldsync-tools"), "\(server)")
    }

    @Test("A tool's exit status and messages come back through fieldsync unchanged")
    func statusPassesThrough() async throws {
        let refused = try await FieldSyncCLI.run(["bench", "sync", "--batches", "0"])
        let unknown = try await FieldSyncCLI.run(["bench", "web", "--bogus"])

        #expect(refused.status == 1, "\(refused)")
        #expect(refused.standardError == "fieldsync-tools: --batches must be a number of at least 1\n", "\(refused)")
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.standardError.contains("--bogus") && unknown.standardError.contains("Usage: fieldsync bench web"), "\(unknown)")
    }

    @Test("simulate --server refuses what is not a server's URL, and a --server-pid below 1, before starting anything")
    func simulateServerOptions() async throws {
        let notURL = try await FieldSyncCLI.run(["simulate", "--server", "ftp://127.0.0.1/"])
        let badPid = try await FieldSyncCLI.run(["simulate", "--server", "http://127.0.0.1:9/", "--server-pid", "0"])

        #expect(notURL.status == 1, "\(notURL)")
        #expect(notURL.standardError == "fieldsync-tools: --server must be a server's URL, e.g. http://127.0.0.1:8080/\n", "\(notURL)")
        #expect(badPid.status == 1, "\(badPid)")
        #expect(badPid.standardError == "fieldsync-tools: --server-pid must be a number of at least 1\n", "\(badPid)")
    }

    @Test("Without fieldsync-tools beside it, fieldsync bench exits 1 and says what to build")
    func toolsMissing() throws {
        // A hard link in a folder beside the build products, not a copy: a copy's write handle can
        // leak into a child another test is starting, and executing the file then fails with
        // "Text file busy".
        let executable = try FieldSyncCLI.executableURL()
        let folder = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fieldsync-alone-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let alone = folder.appendingPathComponent("fieldsync")
        try FileManager.default.linkItem(at: executable, to: alone)

        let process = Process()
        process.executableURL = alone
        process.arguments = ["bench", "http"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 1, "\(message)")
        #expect(message.hasPrefix("fieldsync: "), "\(message)")
        #expect(message.contains(folder.resolvingSymlinksInPath().appendingPathComponent("fieldsync-tools").path), "\(message)")
        #expect(message.contains("swift build --product fieldsync-tools"), "\(message)")
    }
}
