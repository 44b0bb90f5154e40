import Foundation
import Postgres
import Seeding
import Storage
import SyncEngine
import SyncProtocol
import Testing

/// The benchmark seeder's data, read back through the back-office stores: every page's
/// query must decode what the seeder wrote, and the figures must agree with the tables.
@Suite("Back-office benchmark data")
struct BackOfficeSeederTests {
    static let volume = BackOfficeVolume(devices: 40, ops: 1_600, openConflicts: 50)
    let database: PostgresClient
    let samples: BackOfficeSamples

    init() throws {
        database = try SeedingDatabase.migrated()
        let seeder = BackOfficeSeeder(database: database)
        try seeder.seed(Self.volume)
        try seeder.settle()
        samples = try seeder.samples(count: 3)
    }

    private func integer(_ query: PostgresQuery) throws -> Int {
        try database.withConnection { try $0.query(query)[0].decode(0, as: Int.self) }
    }

    @Test("Loads the requested volume with every outcome, and orders in every status")
    func volume() throws {
        #expect(try integer("SELECT count(*) FROM devices") == 40)
        #expect(try integer("SELECT count(*) FROM users WHERE role = 'field'") == 40)
        #expect(try integer("SELECT count(*) FROM op_log") == 1_600)
        #expect(try integer("SELECT count(DISTINCT status) FROM op_log") == 4)
        #expect(try integer("SELECT count(*) FROM records WHERE collection <> 'assignments'") == 400)
        #expect(try integer("SELECT count(*) FROM records WHERE collection = 'assignments'") == 80)
        let matched = try integer(
            """
            SELECT count(*) FROM records r JOIN records a ON a.collection = 'assignments' AND a.record_id = r.payload->>'assignmentId'
            WHERE r.collection = 'reports' AND a.user_scope = r.user_scope AND a.team_scope = r.team_scope
            """)
        #expect(matched == 80)
        #expect(try integer("SELECT count(*) FROM conflicts WHERE state = 'open'") == 50)
        #expect(try integer("SELECT count(*) FROM records WHERE conflict_id IS NOT NULL") == 50)
        #expect(try integer("SELECT count(*) FROM devices WHERE app_version < '2.0.0'") == 8)
        let orders = try PostgresOrderStore(database: database).counts()
        #expect(orders == [.submitted: 12, .confirmed: 24, .rejected: 4])
        #expect(samples.deviceIds.count == 3 && samples.openConflictIds.count == 3 && samples.submittedOrderIds.count == 3)
    }

    @Test("Refuses a volume it cannot lay out")
    func impossibleVolume() throws {
        let seeder = BackOfficeSeeder(database: database)
        #expect(throws: SeedingError.self) { try seeder.seed(BackOfficeVolume(devices: 10, ops: 100, openConflicts: 1)) }
        #expect(throws: SeedingError.self) { try seeder.seed(BackOfficeVolume(devices: 10, ops: 400, openConflicts: 21)) }
    }

    @Test("The sync centre's counts, journal and history decode and agree with the op log")
    func syncCentre() throws {
        let store = PostgresSyncCentreStore(database: database)
        let devices = try store.devices(teamId: nil).rows
        #expect(devices.count == 40)
        let device = try #require(devices.first { $0.deviceId == samples.deviceIds[0] })
        let logged = try integer("SELECT count(*) FROM op_log WHERE device_id = \(device.deviceId)")
        #expect(device.applied + device.deferred + device.rejected + device.conflict == logged)
        #expect(try store.device(id: device.deviceId)?.applied == device.applied)
        #expect(try store.devices(teamId: device.teamId).rows.count == 20)
        let journal = try store.journal(deviceId: device.deviceId, status: nil, limit: 1_000).rows
        #expect(journal.count == logged && journal.allSatisfy { $0.type != nil && !$0.fieldNames.isEmpty })
        #expect(try store.journal(deviceId: device.deviceId, status: .rejected, limit: 1_000).rows.count == device.rejected)
        let record = samples.records[0]
        #expect(try store.history(collection: record.collection, recordId: record.recordId, teamId: nil).rows.count == 4)
        #expect(try store.record(collection: record.collection, recordId: record.recordId, teamId: nil)?.payload["title"] != nil)
    }

    @Test("The conflict queue lists entries without revisions; one conflict comes whole")
    func conflicts() throws {
        let store = PostgresConflictStore(database: database)
        let queue = try store.openConflicts(collection: nil, teamId: nil)
        #expect(queue.totalOpen == 50 && queue.conflicts.count == 50)
        #expect(queue.collectionCounts.map(\.collection) == ["reports"] && queue.teams.count == 2)
        let listed = try #require(queue.conflicts.first)
        #expect(listed.entry.deviceRevision.isEmpty && listed.entry.serverRevision.isEmpty && listed.entry.fields.map(\.field) == ["answers"])
        let whole = try #require(try store.conflict(id: listed.entry.id))
        #expect(whole.entry.deviceRevision["answers"] != nil && whole.entry.serverRevision["answers"] != nil)
        #expect(whole.entry.id == listed.entry.id && whole.teamId == listed.teamId && whole.authorName == listed.authorName)
        #expect(try store.openConflicts(collection: nil, teamId: listed.teamId).conflicts.allSatisfy { $0.teamId == listed.teamId })
    }

    @Test("Orders, the team roll-up and the dashboard decode and agree with the tables")
    func ordersRollupAndDashboard() throws {
        let orders = PostgresOrderStore(database: database)
        #expect(try orders.orders(status: .submitted).rows.count == 12)
        let order = try #require(try orders.order(id: samples.submittedOrderIds[0]))
        #expect(order.order.status == .submitted && !order.order.lines.isEmpty && order.submittedBy != nil)

        let members = try PostgresTeamRollupStore(database: database).rollup(teamId: samples.teamId)
        #expect(members.count == 21)
        let teamOps = try integer(
            "SELECT count(*) FROM op_log o JOIN users u ON u.id = o.author_id WHERE u.team_id = \(samples.teamId)")
        #expect(members.reduce(0) { $0 + $1.opsApplied + $1.opsDeferred + $1.opsRejected + $1.opsConflict } == teamOps)

        let dashboard = try PostgresDashboardStore(database: database).counts(teamId: nil, startOfDay: Date(timeIntervalSinceNow: -86_400))
        #expect(dashboard.openConflicts == 50 && dashboard.ordersSubmitted == 12)
        #expect(dashboard.opsDeferred == (try integer("SELECT count(*) FROM op_log WHERE status = 'deferred'")))
    }
}
