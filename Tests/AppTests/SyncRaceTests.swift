import AppTesting
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Synchronization
import Testing

/// Concurrent pushers against concurrent pagers (ARCHITECTURE.md "Correctness spine",
/// docs/decisions/0003 and 0004): paging never skips or repeats a change, nor shows a record
/// going back, while writers commit.
@Suite("Sync race over HTTP")
struct SyncRaceTests {
    /// How long the pushers run.
    static let pushing: Duration = .seconds(3)

    @Test("Pushers and pagers race for 3 s: every pager's rebuilt state equals the server's, no change seen twice or going back")
    func pushersAgainstPagers() async throws {
        let server = try await TestServer.startSync(poolSize: 4)
        defer { server.finish() }
        try server.updateSettings {
            $0.deviceRequestsPerSecond = 100_000
            $0.deviceRequestBurst = 100_000
        }
        let dora = try await server.device(.dispatcher, team: nil)
        let shared = (0..<5).map { "job-shared-\($0)" }
        let created = try await dora.push(shared.map { dora.create("jobs", $0, ["title": .string($0), "teamId": "north"]) })
        var pushers: [SyncDevice] = []
        for _ in 0..<4 { pushers.append(try await server.device(team: "north")) }
        let pagers = [
            try await server.device(team: "north"), try await server.device(team: "south"),
            try await server.device(.supervisor, team: "north"), try await dora.sibling(),
        ]
        let stop = StopFlag()

        let (outcomes, logs) = try await withThrowingTaskGroup(of: RaceResult.self) { group in
            for (index, device) in pushers.enumerated() {
                group.addTask { .pushed(try await RacePusher(device: device, index: index, shared: shared).run(for: Self.pushing)) }
            }
            let bases = Dictionary(uniqueKeysWithValues: zip(shared, created.map { $0.serverSeq ?? 0 }))
            group.addTask { .pushed(try await Self.reassign(dora, bases: bases, for: Self.pushing)) }
            for pager in pagers {
                group.addTask { .pulled(try await RacePager(device: pager).run(until: stop)) }
            }
            var outcomes: [OpResult] = []
            var logs: [RacePager] = []
            var pushersLeft = pushers.count + 1
            for try await result in group {
                switch result {
                case .pushed(let results):
                    outcomes += results
                    pushersLeft -= 1
                    // Every push has been answered, so committed: the pagers may finish their last drain.
                    if pushersLeft == 0 { stop.raise() }
                case .pulled(let log):
                    logs.append(log)
                }
            }
            return (outcomes, logs)
        }

        #expect(outcomes.count > 50, "the pushers did work")
        #expect(outcomes.allSatisfy { $0.status == .applied || $0.status == .conflict || $0.code == .outOfScope })
        for log in logs {
            #expect(log.violations.isEmpty, "\(log.violations.prefix(5))")
            #expect(log.pages > 3)
            let fresh = try await log.device.drain()
            #expect(log.replica == Replica(fresh.changes), "pager \(log.device.user.role) of \(log.device.user.teamId ?? "-")")
            #expect(log.lastSeqs.filter { log.replica.records[$0.key] != nil } == Self.seqs(fresh.changes))
        }
        let everything = try #require(logs.first { $0.device.user.role == .dispatcher })
        #expect(everything.replica.records.count == (try server.scalar("SELECT count(*) FROM records WHERE deleted_seq IS NULL")))
    }

    @Test("Devices creating the same new record at the same moment: exactly one create applies, the others get RECORD_EXISTS")
    func concurrentCreatesOfOneRecord() async throws {
        let server = try await TestServer.startSync(poolSize: 4)
        defer { server.finish() }
        var devices: [SyncDevice] = []
        for _ in 0..<4 { devices.append(try await server.device(team: "north")) }

        for round in 0..<8 {
            let id = "job-race-\(round)"
            let results = try await withThrowingTaskGroup(of: (String, OpResult).self) { group in
                for device in devices {
                    group.addTask {
                        (device.deviceId, try await device.push1(device.create("jobs", id, ["title": .string(device.deviceId)])))
                    }
                }
                return try await group.reduce(into: [(String, OpResult)]()) { $0.append($1) }
            }

            let winners = results.filter { $0.1.status == .applied }
            #expect(winners.count == 1, "\(id): \(results.map { "\($0.0) \($0.1.status)" })")
            #expect(results.filter { $0.1.code == .recordExists }.count == devices.count - 1)
            let stored = try #require(try server.storedRecord("jobs", id))
            #expect(winners.first.map { stored.payload["title"] == .string($0.0) && stored.serverSeq == $0.1.serverSeq } == true)
        }
    }

    @Test("A device re-sending a batch while the first copy is still in flight gets it applied once")
    func concurrentDuplicatePushes() async throws {
        let server = try await TestServer.startSync(poolSize: 4)
        defer { server.finish() }
        let ana = try await server.device()
        let ops = (1...20).map { ana.create("jobs", "job-\($0)", ["title": "t"]) }
        let counts = try server.syncTableCounts()

        let answers = try await withThrowingTaskGroup(of: [OpResult].self) { group in
            for _ in 0..<4 { group.addTask { try await ana.push(ops) } }
            return try await group.reduce(into: [[OpResult]]()) { $0.append($1) }
        }

        #expect(Set(answers.map { $0.map(\.serverSeq) }).count == 1, "every copy answers the same serverSeqs")
        #expect(answers.filter { $0.allSatisfy { $0.replayed == nil } }.count == 1)
        #expect(answers.allSatisfy { $0.allSatisfy { $0.status == .applied } })
        #expect(try server.syncTableCounts()["sequence"] == (counts["sequence"] ?? 0) + 20)
    }

    private static func seqs(_ changes: [Change]) -> [String: Int64] {
        Dictionary(changes.map { (Replica.key($0.collection, $0.recordId), $0.serverSeq) }, uniquingKeysWith: { _, last in last })
    }

    /// The dispatcher moves the shared jobs between the teams, so pagers see removes and re-entries.
    private static func reassign(_ dora: SyncDevice, bases: [String: Int64], for duration: Duration) async throws -> [OpResult] {
        let deadline = ContinuousClock.now + duration
        var bases = bases
        var results: [OpResult] = []
        var round = 0
        while ContinuousClock.now < deadline {
            round += 1
            let ops = bases.keys.sorted().enumerated().filter { ($0.offset + round) % 2 == 0 }.map { _, id in
                dora.update("jobs", id, ["teamId": round % 4 < 2 ? "south" : "north"], base: bases[id])
            }
            let answered = try await dora.push(ops)
            for (op, result) in zip(ops, answered) { bases[op.recordId] = result.serverSeq ?? bases[op.recordId] }
            results += answered
            try await Task.sleep(for: .milliseconds(20))
        }
        return results
    }
}

/// Set once every push has been answered.
final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    var isRaised: Bool { raised.load(ordering: .sequentiallyConsistent) }

    func raise() { raised.store(true, ordering: .sequentiallyConsistent) }
}

/// What a task of the race reports.
enum RaceResult: Sendable {
    case pushed([OpResult])
    case pulled(RacePager)
}

/// One field device creating its own jobs, updating them and the shared ones, deleting some.
struct RacePusher {
    let device: SyncDevice
    let index: Int
    let shared: [String]

    /// Rounds each pusher runs however long they take, so that a loaded machine still races
    /// enough pushes against the pagers.
    static let minimumRounds = 8

    func run(for duration: Duration) async throws -> [OpResult] {
        let deadline = ContinuousClock.now + duration
        var known: [String: Int64] = [:]
        var own: [String] = []
        var results: [OpResult] = []
        var round = 0
        while ContinuousClock.now < deadline || round < Self.minimumRounds {
            round += 1
            let id = "job-\(index)-\(round)"
            var ops = [device.create("jobs", id, ["title": .string(id), "labor_minutes": 0])]
            if let previous = own.last {
                ops.append(device.update("jobs", previous, ["labor_minutes": .int(Int64(round))], base: known[previous]))
            }
            let target = shared[(round + index) % shared.count]
            ops.append(device.update("jobs", target, ["notes": .string("\(device.deviceId) #\(round)")], base: known[target]))
            if round % 4 == 0, own.count > 2 {
                let victim = own.removeFirst()
                ops.append(device.delete("jobs", victim, base: known[victim]))
            }
            let answered = try await device.push(ops)
            for (op, result) in zip(ops, answered) { known[op.recordId] = result.serverSeq ?? known[op.recordId] }
            own.append(id)
            results += answered
        }
        return results
    }
}

/// One device paging with a small limit while the pushers run, then to the end; it checks
/// every page against what it saw before.
struct RacePager: Sendable {
    let device: SyncDevice
    var replica = Replica()
    /// The last serverSeq received per record.
    var lastSeqs: [String: Int64] = [:]
    var pages = 0
    var violations: [String] = []
    private var seen: Set<String> = []

    init(device: SyncDevice) { self.device = device }

    func run(until stop: StopFlag) async throws -> RacePager {
        var log = self
        var cursor: String?
        while true {
            let finishing = stop.isRaised
            let page = try await device.pull(cursor: cursor, limit: 7)
            log.check(page)
            cursor = page.nextCursor
            if !page.hasMore {
                if finishing { return log }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    private mutating func check(_ page: PullResponse) {
        pages += 1
        for change in page.changes {
            let key = Replica.key(change.collection, change.recordId)
            // Pages follow the writing transactions (docs/decisions/0004): serverSeq grows per record, not across records.
            if let last = lastSeqs[key], change.serverSeq <= last { violations.append("\(key) at \(change.serverSeq) after \(last)") }
            if !seen.insert("\(key)@\(change.serverSeq)").inserted { violations.append("\(key) at \(change.serverSeq) twice") }
            lastSeqs[key] = change.serverSeq
        }
        replica.apply(page.changes)
    }
}
