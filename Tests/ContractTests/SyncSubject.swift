import Foundation
import Postgres
import Storage
import Support
import SyncEngine
import SyncEngineTesting
import SyncProtocol

/// The sync engine over one implementation of the sync store and the pull reader, with a fixed
/// clock and predictable ids. Everything it reads back goes through the ports, never around them.
final class SyncSubject {
    let clock = TestClock()
    let store: any SyncStore & IdempotentSyncStore
    let service: PushService
    let pulls: PullService
    let orders: OrderService
    var ops: OpBuilder
    private let database: PostgresClient?

    init(_ implementation: Implementation) throws {
        let logger = Logger(label: "test", sink: .capturing())
        let reader: any PullReader
        database = try implementation.database(users: [People.ana, People.ben, People.carla, People.dora, People.adam].map(\.userId))
        if let database {
            store = PostgresSyncStore(database: database, attachments: PostgresAttachmentStore(database: database), logger: logger)
            reader = PostgresPullReader(database: database)
        } else {
            let fake = InMemorySyncStore()
            (store, reader) = (fake, fake)
        }
        let (clock, ids) = (clock, Counter())
        let schema = try Schema.builtIn()
        let processor = PushProcessor(schema: schema, configuration: SyncConfiguration(), clock: { clock.now }, makeId: { ids.next() })
        service = PushService(store: store, processor: processor, logger: logger)
        orders = OrderService(store: store, changes: ServerChangeService(store: store, schema: schema, clock: { clock.now }, makeId: { ids.next() }))
        pulls = PullService(reader: reader, cursors: PullCursorCodec(key: Data("contract suite".utf8)))
        ops = OpBuilder(clock: clock)
    }

    deinit { database?.shutdown() }

    /// Pushes `ops` from `principal`'s device and returns the results in request order.
    @discardableResult
    func push(_ ops: [PushOp], by principal: Principal) throws -> [OpResult] {
        try service.push(PushRequest(deviceId: principal.deviceId, schemaVersion: 3, ops: ops), by: principal).results
    }

    /// Pushes one op and returns its result.
    @discardableResult
    func push1(_ op: PushOp, by principal: Principal) throws -> OpResult {
        try push([op], by: principal)[0]
    }

    /// The `serverSeq` of an op that must apply.
    func applied(_ op: PushOp, by principal: Principal) throws -> Int64 {
        let result = try push1(op, by: principal)
        guard result.status == .applied, let seq = result.serverSeq else { throw Unexpected(result: result) }
        return seq
    }

    /// The stored record (tombstones included).
    func record(_ collection: String, _ recordId: String) throws -> StoredRecord? {
        try store.transaction { try $0.lockRecords([RecordKey(collection: collection, recordId: recordId)]).first }
    }

    /// The op log rows of `principal`'s device among `opIds`.
    func opLog(_ principal: Principal, _ opIds: [String]) throws -> [OpLogEntry] {
        try store.transaction { try $0.lockDevice(principal.deviceId, readingOps: opIds).stored }
    }

    /// Every page `principal` pulls from `cursor` until the server has no more.
    func drain(_ principal: Principal, from cursor: String? = nil, limit: Int = 500) throws -> PullRun {
        var run = PullRun(pages: [], cursor: cursor)
        repeat {
            let page = try pulls.page(for: principal, cursor: run.cursor, limit: limit, maximum: 500)
            run.pages.append(page)
            run.cursor = page.nextCursor
        } while run.pages.last?.hasMore == true
        return run
    }

    /// What can be observed of the whole store: the latest sequence number and every record's latest change.
    func snapshot() throws -> PullPage {
        try pulls.page(for: People.adam, cursor: nil, limit: nil, maximum: 10_000)
    }

    struct Unexpected: Error {
        let result: OpResult
    }
}

/// The pages of one pull run, decoded.
struct PullRun {
    var pages: [PullPage]
    var cursor: String?

    var changes: [Change] {
        get throws { try pages.flatMap { try $0.changes.map(Self.decode) } }
    }

    /// A pulled row as the device reads it: the object with its `fieldMeta` put back.
    static func decode(_ row: PullRow) throws -> Change {
        var change = try JSONDecoder().decode(Change.self, from: Data(row.json.utf8))
        change.fieldMeta = try row.fieldMeta.map { try JSONDecoder().decode([String: FieldMeta].self, from: Data($0.utf8)) }
        return change
    }

    /// The last change pulled for a record.
    func last(_ collection: String, _ recordId: String) throws -> Change? {
        try changes.last { $0.collection == collection && $0.recordId == recordId }
    }
}
