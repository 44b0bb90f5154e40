import Foundation
public import Postgres

/// How large a database `fieldsync bench web` measures the back-office on.
public struct BackOfficeVolume: Sendable, Equatable {
    /// Field users, one device each, in teams of ``teamSize``.
    public var devices: Int
    /// Ops in the op log, spread evenly over the devices.
    public var ops: Int
    /// Conflicts waiting in the review queue (each on a `reports` record).
    public var openConflicts: Int

    public static let teamSize = 20

    public init(devices: Int = 1_000, ops: Int = 100_000, openConflicts: Int = 1_000) {
        self.devices = devices
        self.ops = ops
        self.openConflicts = openConflicts
    }

    /// Ops per device: `ops / devices`, rounded down to whole records of four ops each.
    public var opsPerDevice: Int { ops / max(devices, 1) / 4 * 4 }

    /// `reports` records per device: every fifth record (see `BackOfficeSeeder`).
    public var reportsPerDevice: Int { opsPerDevice / 4 / 5 }
}

/// Ids of seeded rows to open pages with: a few of each, spread over the data.
public struct BackOfficeSamples: Sendable {
    public var deviceIds: [String]
    public var records: [(collection: String, recordId: String)]
    public var openConflictIds: [String]
    public var submittedOrderIds: [String]
    public var fieldUserIds: [String]
    /// A team with members, and its supervisor (for `GET /v1/team/rollup`).
    public var teamId: String
    public var supervisorId: String
}

/// Bulk data for `fieldsync bench web`: teams of field users with one device each, an op log
/// with the usual mix of outcomes, the records those ops made, open and resolved conflicts and
/// orders in every status, all written with a few set-based statements.
///
/// Layout, per device `d` with `P` ops: op `k` is change `k % 4` (0 creates) of the device's
/// record `k / 4`; record 1 is an order, every fifth record from 3 a visit, from 4 a report,
/// the others jobs. Conflicts sit on reports (an older resolved one and an open one), the
/// devices whose number ends in 0 hold deferred ops, about 3% of updates are rejected.
public struct BackOfficeSeeder: Sendable {
    let database: PostgresClient

    public init(database: PostgresClient) {
        self.database = database
    }

    /// A bulk load runs longer than the pool's session timeouts allow a request.
    static let noTimeouts = "SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0; SET LOCAL idle_in_transaction_session_timeout = 0"

    /// Loads `volume` into an empty database (beside whatever accounts it already has).
    /// - Throws: `PostgresError` from the statements, or a description of an impossible volume.
    public func seed(_ volume: BackOfficeVolume) throws {
        guard volume.devices > 0, volume.opsPerDevice >= 20 else {
            throw SeedingError("need at least one device and 20 ops per device (got \(volume.ops) ops over \(volume.devices) devices)")
        }
        guard (0...volume.devices * volume.reportsPerDevice).contains(volume.openConflicts) else {
            throw SeedingError("at most \(volume.devices * volume.reportsPerDevice) open conflicts fit in this volume")
        }
        try database.withTransaction { connection in
            try connection.executeScript(Self.noTimeouts)
            try seedAccounts(volume, on: connection)
            try seedDevices(volume, on: connection)
            try seedJournal(volume, on: connection)
            try seedRecords(on: connection)
            try seedAssignments(on: connection)
            try seedConflicts(on: connection)
        }
    }

    /// Brings the freshly loaded database to a steady state before anything is measured:
    /// vacuums and refreshes planner statistics, as autovacuum would soon after a bulk load
    /// (the visibility map is then set, as on a server running for a while), and checkpoints,
    /// so neither autovacuum nor the flush of the loaded pages runs during a measurement.
    /// Needs a superuser (the benchmark's own cluster).
    public func settle() throws {
        // Two commands: VACUUM refuses to run in a multi-command string.
        try database.withConnection { connection in
            try connection.executeScript("SET statement_timeout = 0")
            defer { try? connection.executeScript("RESET statement_timeout") }
            try connection.executeScript("VACUUM (ANALYZE)")
            try connection.executeScript("CHECKPOINT")
        }
    }

    /// A handful of seeded ids of each kind, spread over the data (ordered by a hash, so the
    /// same on every run).
    public func samples(count: Int = 10) throws -> BackOfficeSamples {
        try database.withConnection { connection in
            func strings(_ query: PostgresQuery) throws -> [String] {
                try connection.query(query).map { try $0.decode(0) }
            }
            let records = try connection.query(
                "SELECT collection, record_id FROM records WHERE record_id LIKE 'jobs-%' ORDER BY md5(record_id) LIMIT \(count)")
            let supervisor = try connection.query(
                "SELECT id, team_id FROM users WHERE role = 'supervisor' AND id LIKE 'u-super-%' ORDER BY md5(id) LIMIT 1")
            guard let team = supervisor.first else { throw SeedingError("no seeded supervisor") }
            return BackOfficeSamples(
                deviceIds: try strings("SELECT device_id FROM devices WHERE device_id LIKE 'dev-%' ORDER BY md5(device_id) LIMIT \(count)"),
                records: try records.map { (try $0.decode(0), try $0.decode(1)) },
                openConflictIds: try strings("SELECT id FROM conflicts WHERE state = 'open' ORDER BY md5(id) LIMIT \(count)"),
                submittedOrderIds: try strings(
                    """
                    SELECT record_id FROM records WHERE collection = 'orders' AND payload->>'status' = 'SUBMITTED'
                    ORDER BY md5(record_id) LIMIT \(count)
                    """),
                fieldUserIds: try strings("SELECT id FROM users WHERE id LIKE 'u-field-%' ORDER BY md5(id) LIMIT \(count)"),
                teamId: try team.decode(1), supervisorId: try team.decode(0))
        }
    }

    /// Teams of ``BackOfficeVolume/teamSize`` field users, a supervisor per team and a few
    /// dispatchers.
    private func seedAccounts(_ volume: BackOfficeVolume, on connection: PostgresConnection) throws {
        let teams = "generate_series(0, (\(volume.devices) - 1) / \(BackOfficeVolume.teamSize))"
        try connection.execute("INSERT INTO teams (id) SELECT \(unescaped: SeedSQL.team("t")) FROM \(unescaped: teams) t")
        try connection.execute(
            """
            INSERT INTO users (id, username, role, team_id, password_hash, suspended, created_at)
            SELECT \(unescaped: SeedSQL.fieldUser("d")), 'field-' || lpad(d::text, 5, '0'), 'field',
                   \(unescaped: SeedSQL.team("d / \(BackOfficeVolume.teamSize)")), '!', d % 97 = 13, now() - (d % 300) * interval '1 day'
            FROM generate_series(0, \(volume.devices)::int - 1) d
            UNION ALL
            SELECT 'u-super-' || t, 'supervisor-' || lpad(t::text, 3, '0'), 'supervisor', \(unescaped: SeedSQL.team("t")), '!', false,
                   now() - interval '400 days'
            FROM \(unescaped: teams) t
            UNION ALL
            SELECT 'u-dispatch-' || i, 'dispatcher-' || i, 'dispatcher', NULL, '!', false, now() - interval '400 days'
            FROM generate_series(0, 4) i
            """)
    }

    /// One device per field user on a spread of app versions (a fifth below 2.0.0), with live,
    /// expired and revoked sign-in tokens.
    private func seedDevices(_ volume: BackOfficeVolume, on connection: PostgresConnection) throws {
        try connection.execute(
            """
            INSERT INTO devices (device_id, user_id, received_through, app_version, platform, first_seen_at, last_sync_at)
            SELECT \(unescaped: SeedSQL.device("d")), \(unescaped: SeedSQL.fieldUser("d")), \(volume.opsPerDevice)::int,
                   (ARRAY['1.9.4', '1.9.4', '2.0.1', '2.0.1', '2.0.1', '2.1.0', '2.1.0', '2.1.0', '2.1.0', '2.2.0'])[d % 10 + 1],
                   CASE WHEN d % 3 = 0 THEN 'android' ELSE 'ios' END, now() - interval '60 days',
                   now() - (d * 37 % 96) * interval '1 hour' - (d % 60) * interval '1 minute'
            FROM generate_series(0, \(volume.devices)::int - 1) d
            """)
        // Every device holds its current token; every fifth also an old revoked one.
        try connection.execute(
            """
            INSERT INTO device_tokens (token_hash, user_id, device_id, platform, app_version, created_at, expires_at, revoked_at)
            SELECT sha256(convert_to(v.device_id || '/' || n, 'UTF8')), v.user_id, v.device_id, v.platform, v.app_version,
                   CASE n WHEN 0 THEN now() - (d % 30) * interval '1 day' ELSE now() - interval '120 days' END,
                   CASE WHEN n = 1 THEN now() - interval '30 days' WHEN d % 40 = 7 THEN now() - interval '1 day' ELSE now() + interval '60 days' END,
                   CASE WHEN n = 1 THEN now() - interval '90 days' WHEN d % 50 = 3 THEN now() - interval '2 days' END
            FROM generate_series(0, \(volume.devices)::int - 1) d CROSS JOIN generate_series(0, 1) n
            JOIN devices v ON v.device_id = \(unescaped: SeedSQL.device("d"))
            WHERE n = 0 OR d % 5 = 0
            """)
    }
}

/// A volume the seeder cannot lay out.
public struct SeedingError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// SQL expressions naming seeded rows, shared by the seeding statements.
enum SeedSQL {
    static func team(_ number: String) -> String { "'team-' || lpad((\(number))::text, 3, '0')" }
    static func fieldUser(_ number: String) -> String { "'u-field-' || (\(number))" }
    static func device(_ number: String) -> String { "'dev-' || lpad((\(number))::text, 5, '0')" }

    /// Takes `count` serverSeq numbers from the server sequence at once and answers the one
    /// before the first. Not safe beside concurrent writers (another session's number could
    /// land inside the block): seeding runs on a database of its own.
    static func reserve(_ count: String) -> String {
        "setval('server_seq', nextval('server_seq') + (\(count)) - 1) - (\(count))"
    }

    /// `timestamptz` as the protocol writes it (RFC 3339, UTC, whole seconds).
    static func rfc3339(_ time: String) -> String {
        "to_char((\(time)) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    }
}
