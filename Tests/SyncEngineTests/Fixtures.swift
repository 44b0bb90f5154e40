import Foundation
import Support
import Synchronization
import SyncEngine
import SyncProtocol

/// People of the test scenarios: team t-1 (ana, ben; supervisor sam), team t-2 (carla), office (dora, adam).
enum People {
    static let ana = Principal(userId: "u-ana", role: .field, teamId: "t-1", deviceId: "dev-ana")
    static let anaTablet = Principal(userId: "u-ana", role: .field, teamId: "t-1", deviceId: "dev-ana-tablet")
    static let ben = Principal(userId: "u-ben", role: .field, teamId: "t-1", deviceId: "dev-ben")
    static let carla = Principal(userId: "u-carla", role: .field, teamId: "t-2", deviceId: "dev-carla")
    static let sam = Principal(userId: "u-sam", role: .supervisor, teamId: "t-1", deviceId: "dev-sam", teamMemberIds: ["u-ana", "u-ben"])
    static let dora = Principal(userId: "u-dora", role: .dispatcher, deviceId: "web:u-dora")
    static let adam = Principal(userId: "u-adam", role: .admin, deviceId: "web:u-adam")
}

/// A clock tests can move.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: String = "2026-11-03T09:00:00Z") { current = Mutex(RFC3339.date(from: start)!) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    /// An RFC 3339 time `offset` seconds from now.
    func stamp(_ offset: TimeInterval = 0) -> String { RFC3339.string(from: now.addingTimeInterval(offset)) }
}

/// Predictable ids: `c-1`, `c-2`, …
final class Counter: Sendable {
    private let value = Mutex(0)

    func next() -> String { value.withLock { $0 += 1; return "c-\($0)" } }
}

/// Builds ops with per-device `clientSeq` counters.
struct OpBuilder: Sendable {
    let clock: TestClock
    private var seqs: [String: Int64] = [:]
    private var ids = 0

    init(clock: TestClock) { self.clock = clock }

    mutating func op(
        _ device: Principal, _ type: OpType, _ collection: String, _ recordId: String, _ fields: [String: JSONValue] = [:],
        base: Int64? = nil, old: [String: JSONValue] = [:], seq: Int64? = nil, opId: String? = nil, entityKey: String? = nil,
        dependsOn: [String]? = nil, resolves: String? = nil, occurredAt: String? = nil
    ) -> PushOp {
        let clientSeq = seq ?? (seqs[device.deviceId, default: 0] + 1)
        seqs[device.deviceId] = max(seqs[device.deviceId, default: 0], clientSeq)
        ids += 1
        return PushOp(
            opId: opId ?? "\(device.deviceId)-op-\(ids)", clientSeq: clientSeq, collection: collection, recordId: recordId, type: type,
            entityKey: entityKey, baseServerSeq: base, occurredAt: occurredAt ?? clock.stamp(-60),
            fields: type == .delete ? nil : fields.reduce(into: [:]) { $0[$1.key] = FieldChange(old: old[$1.key], new: $1.value) },
            dependsOn: dependsOn, resolves: resolves)
    }
}

/// An engine over an in-memory store with a fixed clock and predictable ids.
struct Harness: Sendable {
    let clock = TestClock()
    let ids = Counter()
    let store = InMemorySyncStore()
    let schema: Schema
    let processor: PushProcessor
    let service: PushService
    let changes: ServerChangeService
    var ops: OpBuilder

    init(schema: Schema? = nil, configuration: SyncConfiguration = SyncConfiguration()) throws {
        let schema = try schema ?? Schema.builtIn()
        let (clock, ids) = (self.clock, self.ids)
        self.schema = schema
        processor = PushProcessor(schema: schema, configuration: configuration, clock: { clock.now }, makeId: { ids.next() })
        service = PushService(store: store, processor: processor, logger: Logger(label: "test", sink: .capturing()))
        changes = ServerChangeService(store: store, schema: schema, clock: { clock.now }, makeId: { ids.next() })
        self.ops = OpBuilder(clock: clock)
    }

    /// Pushes `ops` from `principal`'s device and returns the results in request order.
    @discardableResult
    func push(_ ops: [PushOp], by principal: Principal, schemaVersion: Int = 3) throws -> [OpResult] {
        try service.push(PushRequest(deviceId: principal.deviceId, schemaVersion: schemaVersion, ops: ops), by: principal).results
    }

    /// Pushes one op and returns its result.
    @discardableResult
    func push1(_ op: PushOp, by principal: Principal, schemaVersion: Int = 3) throws -> OpResult {
        try push([op], by: principal, schemaVersion: schemaVersion)[0]
    }

    func record(_ collection: String, _ id: String) -> StoredRecord? {
        store.state.record(collection, id)
    }

    var state: InMemorySyncStore.State {
        store.state
    }
}
