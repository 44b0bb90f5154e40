import FieldSyncClient
import Foundation
import Support
import SyncProtocol

/// Parses the command line, opens the device and runs one command.
enum DeviceCommand {
    static let usage = """
        usage: fieldsync-device --database PATH --server URL [--app-version 2.3.0] [--latency-ms N] COMMAND

        commands:
          sign-in USERNAME                 reads the password from standard input
          create COLLECTION ID FIELD=VALUE...
          update COLLECTION ID FIELD=VALUE...   VALUE is JSON (2, true, "text") or else plain text
          delete COLLECTION ID
          show COLLECTION [ID]             records as the device shows them, one JSON line each
          attach COLLECTION ID FILE [--content-type image/jpeg]   prints the photo id
          sync                             one sync; exit 0 when everything is synced, 3 when not
          status                           the sync indicator
          issues                           conflicts and rejections, one per line
          sign-out [--discard]             refused while work is unsynced, unless --discard
          work --edits N [--photos M] [--photo-bytes B] [--sync-every K] [--pause-ms P]
                                           a resumable field workload (see the README)
        """

    static let valueOptions: Set<String> = [
        "database", "server", "app-version", "latency-ms", "content-type", "edits", "photos", "photo-bytes", "sync-every", "pause-ms",
    ]

    static func main(_ words: [String]) async -> Int32 {
        do {
            let arguments = try CommandLineArguments(words, valueOptions: valueOptions, flagOptions: ["help", "discard"])
            guard !arguments.has("help"), let command = arguments.positionals.first else {
                print(usage)
                return arguments.has("help") ? 0 : 2
            }
            let client = try SyncClient(configuration: try configuration(arguments))
            defer { try? client.close() }
            return try await run(command, Array(arguments.positionals.dropFirst()), arguments, on: client)
        } catch let error as CommandLineArguments.ParseError {
            FileHandle.standardError.write(Data("\(error)\n\(usage)\n".utf8))
            return 2
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("\(error)\n\(usage)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("fieldsync-device: \(error)\n".utf8))
            return 1
        }
    }

    private static func configuration(_ arguments: CommandLineArguments) throws -> SyncClient.Configuration {
        guard let database = arguments.value("database"), let server = arguments.value("server").flatMap(URL.init(string:)) else {
            throw UsageError("--database and --server are required")
        }
        var configuration = SyncClient.Configuration(
            serverURL: server, databasePath: database, appVersion: arguments.value("app-version") ?? "2.3.0")
        configuration.platform = "fieldsync-device"
        if let latency = arguments.value("latency-ms").flatMap(Int.init), latency > 0 {
            configuration.transport = DelayedTransport(base: URLSessionTransport(), delay: .milliseconds(latency))
        }
        return configuration
    }

    private static func run(
        _ command: String, _ operands: [String], _ arguments: CommandLineArguments, on client: SyncClient
    ) async throws -> Int32 {
        switch (command, operands.count) {
        case ("sign-in", 1):
            let password = readLine(strippingNewline: true) ?? ""
            let user = try await client.signIn(username: operands[0], password: password)
            print("signed in as \(user.username) (\(user.role.rawValue)) on \(client.deviceId)")
        case ("create", 2...), ("update", 2...):
            let fields = try operands.dropFirst(2).map(field)
            let values = Dictionary(fields, uniquingKeysWith: { _, last in last })
            let record =
                command == "create"
                ? try await client.create(operands[0], id: operands[1], values) : try await client.update(operands[0], id: operands[1], values)
            print(line(record))
        case ("delete", 2):
            try await client.delete(operands[0], id: operands[1])
        case ("show", 1), ("show", 2):
            let records =
                operands.count == 2
                ? [try await client.record(operands[0], id: operands[1])].compactMap { $0 } : try await client.records(operands[0])
            for record in records { print(line(record)) }
        case ("attach", 3):
            let photo = try await client.addPhoto(
                at: URL(fileURLWithPath: operands[2]), to: operands[0], recordId: operands[1],
                contentType: arguments.value("content-type") ?? "image/jpeg")
            print(photo.id)
        case ("sync", 0):
            let status = try await client.sync()
            print(status)
            return status.pending == 0 && status.issueCount == 0 ? 0 : 3
        case ("status", 0):
            print(client.status)
        case ("issues", 0):
            for issue in try await client.issues() { print("\(issue.id)\t\(issue.code)\t\(issue.message)") }
        case ("sign-out", 0):
            print(try await client.signOut(discardingUnsyncedWork: arguments.has("discard")))
        case ("work", 0):
            return try await FieldWork(arguments).run(on: client)
        default:
            throw UsageError("unknown command or wrong operands: \(command) \(operands.joined(separator: " "))")
        }
        return 0
    }

    /// `name=value`: the value as JSON when it parses, else as text.
    private static func field(_ word: String) throws -> (String, JSONValue) {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
            throw UsageError("expected FIELD=VALUE, got \(word)")
        }
        let text = String(word[word.index(after: equals)...])
        return (String(word[..<equals]), JSONValue(parsing: text) ?? .string(text))
    }

    private static func line(_ record: LocalRecord) -> String {
        let body: JSONValue = [
            "collection": .string(record.collection), "id": .string(record.id), "fields": .object(record.fields),
            "pendingChanges": .int(Int64(record.pendingChanges)),
        ]
        return String(decoding: body.canonicalData(), as: UTF8.self)
    }
}

/// A transport that waits before each request: a slow link, so that a harness can stop
/// the process in the middle of a transfer.
struct DelayedTransport: HTTPTransport {
    let base: any HTTPTransport
    let delay: Duration

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(for: delay)
        return try await base.send(request)
    }
}

/// Operands the command does not accept.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
