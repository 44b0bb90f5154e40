import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncEngine
import SyncProtocol
import Synchronization

/// Field values of an op or a payload: name to value.
typealias Values = [String: JSONValue]

/// One logged-in device of a test user, speaking the sync protocol over real HTTP.
///
/// It numbers its ops like the device SDK does: `clientSeq` 1, 2, 3… and a fresh `opId` each,
/// so tests only spell out what a scenario is about.
///
/// ```swift
/// let ana = try await server.device(.field, team: "north")
/// let created = try await ana.push1(ana.create("jobs", "job-1", ["title": "Boiler"]))
/// let page = try await ana.pull()
/// ```
final class SyncDevice: Sendable {
    let server: TestServer
    let user: UserAccount
    let password: String
    let deviceId: String
    let token: String
    let appVersion: String
    private let counters = Mutex<(seq: Int64, op: Int)>((0, 0))

    init(server: TestServer, user: UserAccount, password: String, deviceId: String, appVersion: String) async throws {
        self.server = server
        self.user = user
        self.password = password
        self.deviceId = deviceId
        self.appVersion = appVersion
        token = try await server.login(username: user.username, password: password, deviceId: deviceId)
    }

    /// Another device (phone, tablet) of the same user.
    func sibling(appVersion: String? = nil) async throws -> SyncDevice {
        try await SyncDevice(
            server: server, user: user, password: password, deviceId: "dev-" + Self.shortId(), appVersion: appVersion ?? self.appVersion)
    }

    static func shortId() -> String { String(UUID().uuidString.lowercased().prefix(8)) }

    // MARK: - Ops

    /// A new op: the next `clientSeq` unless `seq` is given, a fresh `opId`, `occurredAt` a minute ago.
    func op(
        _ type: OpType, _ collection: String, _ recordId: String, _ values: Values = [:], base: Int64? = nil, old: Values = [:],
        seq: Int64? = nil, opId: String? = nil, entityKey: String? = nil, dependsOn: [String]? = nil, resolves: String? = nil,
        occurredAt: String? = nil
    ) -> PushOp {
        let (clientSeq, number) = counters.withLock { counters in
            counters.op += 1
            if let seq {
                counters.seq = max(counters.seq, seq)
                return (seq, counters.op)
            }
            counters.seq += 1
            return (counters.seq, counters.op)
        }
        var fields: [String: FieldChange] = [:]
        for (name, value) in values { fields[name] = FieldChange(old: old[name], new: value) }
        return PushOp(
            opId: opId ?? "\(deviceId)-op-\(number)", clientSeq: clientSeq, collection: collection, recordId: recordId, type: type,
            entityKey: entityKey, baseServerSeq: base, occurredAt: occurredAt ?? RFC3339.string(from: Date().addingTimeInterval(-60)),
            fields: type == .delete ? nil : fields, dependsOn: dependsOn, resolves: resolves)
    }

    func create(_ collection: String, _ recordId: String, _ values: Values) -> PushOp {
        op(.create, collection, recordId, values)
    }

    func update(_ collection: String, _ recordId: String, _ values: Values, base: Int64?, old: Values = [:]) -> PushOp {
        op(.update, collection, recordId, values, base: base, old: old)
    }

    func delete(_ collection: String, _ recordId: String, base: Int64?) -> PushOp {
        op(.delete, collection, recordId, base: base)
    }

    // MARK: - Push

    /// The headers a device sends on sync calls.
    var headers: [String: String] { ["X-App-Version": appVersion, "X-Device-Id": deviceId] }

    /// `POST /v1/sync/push` with any JSON body; the raw answer.
    func send(_ body: some Encodable, headers extra: [String: String] = [:]) async throws -> TestResponse {
        try await server.client.post("/v1/sync/push", json: body, headers: headers.merging(extra) { _, new in new }, token: token)
    }

    /// `POST /v1/sync/push` of `ops`; the raw answer.
    func send(_ ops: [PushOp], schemaVersion: Int = 3) async throws -> TestResponse {
        try await send(PushRequest(deviceId: deviceId, schemaVersion: schemaVersion, ops: ops))
    }

    /// Pushes `ops` and returns the response; throws unless the answer is 200.
    func pushResponse(_ ops: [PushOp], schemaVersion: Int = 3) async throws -> PushResponse {
        let response = try await send(ops, schemaVersion: schemaVersion)
        guard response.status == 200 else { throw TestServerError("push answered \(response)") }
        return try response.decode(PushResponse.self)
    }

    /// Pushes `ops` and returns their results in request order.
    @discardableResult
    func push(_ ops: [PushOp], schemaVersion: Int = 3) async throws -> [OpResult] {
        try await pushResponse(ops, schemaVersion: schemaVersion).results
    }

    /// Pushes one op and returns its result.
    @discardableResult
    func push1(_ op: PushOp, schemaVersion: Int = 3) async throws -> OpResult {
        try await push([op], schemaVersion: schemaVersion)[0]
    }

    /// Pushes each op in its own request (rule 3 then never links them) and returns the results.
    func pushEach(_ ops: [PushOp]) async throws -> [OpResult] {
        var results: [OpResult] = []
        for op in ops { results.append(try await push1(op)) }
        return results
    }

    /// Pushes one op that must apply, and returns its `serverSeq`.
    func applied(_ op: PushOp) async throws -> Int64 {
        let result = try await push1(op)
        guard result.status == .applied, let seq = result.serverSeq else { throw TestServerError("\(op.opId) did not apply: \(result)") }
        return seq
    }

    // MARK: - Pull

    /// `GET /v1/sync/pull`; the raw answer.
    func pullResponse(cursor: String? = nil, limit: String? = nil) async throws -> TestResponse {
        var query: [String] = []
        if let cursor { query.append("cursor=" + (cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)) }
        if let limit { query.append("limit=" + limit) }
        return try await server.client.get(
            "/v1/sync/pull" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), headers: headers, token: token)
    }

    /// One pull page; throws unless the answer is 200.
    func pull(cursor: String? = nil, limit: Int? = nil) async throws -> PullResponse {
        let response = try await pullResponse(cursor: cursor, limit: limit.map(String.init))
        guard response.status == 200 else { throw TestServerError("pull answered \(response)") }
        return try response.decode(PullResponse.self)
    }

    /// Pulls page after page until `hasMore` is false.
    func drain(from cursor: String? = nil, limit: Int? = nil) async throws -> PullRun {
        var run = PullRun(cursor: cursor)
        repeat {
            run.pages.append(try await pull(cursor: run.cursor, limit: limit))
            run.cursor = run.pages.last?.nextCursor
        } while run.pages.last?.hasMore == true && run.pages.count < 10_000
        return run
    }
}

extension SyncDevice {
    /// `GET /v1/conflicts`, optionally filtered by state; throws unless the answer is 200.
    func conflicts(_ state: ConflictState? = nil) async throws -> [ConflictEntry] {
        let path = "/v1/conflicts" + (state.map { "?state=" + $0.rawValue } ?? "")
        let response = try await server.client.get(path, headers: headers, token: token)
        guard response.status == 200 else { throw TestServerError("conflicts answered \(response)") }
        return try response.decode(ConflictListResponse.self).conflicts
    }

    /// `POST /v1/conflicts/{id}/resolve`; the raw answer.
    func resolve(_ id: String, _ choice: ResolutionChoice, fields: Values? = nil) async throws -> TestResponse {
        try await server.client.post(
            "/v1/conflicts/\(id)/resolve", json: ResolveRequest(choice: choice, fields: fields), headers: headers, token: token)
    }
}

/// The pages of a pull loop and where it stopped.
struct PullRun {
    var cursor: String?
    var pages: [PullResponse] = []

    /// Every change of every page, in order.
    var changes: [Change] { pages.flatMap(\.changes) }

    /// The last change of a record in this run.
    func last(_ collection: String, _ recordId: String) -> Change? {
        changes.last { $0.collection == collection && $0.recordId == recordId }
    }
}

/// What a device holds after applying pulled changes: upserts set the payload, deletes and
/// removes drop the record.
struct Replica: Equatable {
    var records: [String: Values] = [:]

    static func key(_ collection: String, _ recordId: String) -> String { collection + "/" + recordId }

    mutating func apply(_ changes: [Change]) {
        for change in changes {
            let key = Self.key(change.collection, change.recordId)
            if change.type == .upsert { records[key] = change.payload ?? [:] } else { records[key] = nil }
        }
    }

    init(_ changes: [Change] = []) { apply(changes) }
}

extension TestServer {
    /// A new user of `role` in `team`, logged in on a new device.
    func device(_ role: Role = .field, team: String? = "team-1", appVersion: String = "2.3.0") async throws -> SyncDevice {
        let (user, password) = try makeUser(role: role, team: team)
        return try await SyncDevice(
            server: self, user: user, password: password, deviceId: "dev-" + SyncDevice.shortId(), appVersion: appVersion)
    }

    /// One integer from SQL on the application's own pool.
    func scalar(_ query: PostgresQuery) throws -> Int64 {
        try core.database.withConnection { try $0.query(query)[0].decode(0, as: Int64?.self) ?? 0 }
    }

    /// Row counts of the sync tables and the server sequence: equal before and after a call
    /// means the call wrote nothing.
    func syncTableCounts() throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in ["records", "op_log", "conflicts", "scope_exits"] {
            counts[table] = try scalar("SELECT count(*) FROM \(unescaped: table)")
        }
        counts["sequence"] = try scalar("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM server_seq")
        return counts
    }

    /// A record row as stored: payload, latest change, tombstone and conflict flag.
    func storedRecord(_ collection: String, _ recordId: String) throws -> StoredRow? {
        try core.database.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT payload::text, server_seq, deleted_seq, conflict_id FROM records
                WHERE collection = \(collection) AND record_id = \(recordId)
                """)
            guard let row = rows.first else { return nil }
            return StoredRow(
                payload: try JSONDecoder().decode(Values.self, from: Data(try row.decode(0, as: String.self).utf8)),
                serverSeq: try row.decode(1), deletedSeq: try row.decode(2), conflictId: try row.decode(3))
        }
    }

    /// Changes the server settings the sync gate reads (effective at once in this process).
    func updateSettings(_ change: (inout ServerSettings) -> Void) throws {
        var settings = try core.settings.current()
        change(&settings)
        _ = try core.settings.update(settings, by: nil)
    }
}

/// A `records` row, read back with SQL.
struct StoredRow: Equatable {
    var payload: Values
    var serverSeq: Int64
    var deletedSeq: Int64?
    var conflictId: String?
}
