import Foundation
import Support
import SyncEngine
import SyncEngineTesting
import SyncProtocol

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
