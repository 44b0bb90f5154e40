import Foundation
import Postgres
import PostgresTesting
import SyncEngine
import SyncProtocol
import Testing

@testable import Storage

/// Follows `next` from the first page to the last and returns every row in order.
private func walk<Row>(_ fetch: (PageCursor?) throws -> PageOf<Row>) throws -> (rows: [Row], pages: Int) {
    var rows: [Row] = []
    var page = try fetch(nil)
    var pages = 1
    rows += page.rows
    while let next = page.next {
        page = try fetch(next)
        pages += 1
        rows += page.rows
        try #require(pages < 1_000, "paging does not end")
    }
    return (rows, pages)
}

/// The first column of every row of `query`, as text.
private func column(_ database: PostgresClient, _ query: PostgresQuery) throws -> [String] {
    try database.withConnection { try $0.query(query).map { try $0.decode(0, as: String.self) } }
}

/// Seeds of the paged lists: many rows sharing a timestamp (so ties fall to the later
/// key parts) and timestamps that differ only in the microsecond (so a cursor that lost
/// precision would repeat or skip rows).
private enum Seed {
    static let time = "timestamptz '2026-06-15 09:00:00+00' + (g / 10) * interval '1 second' + (g % 3) * interval '1 microsecond'"

    static func conflicts(_ database: PostgresClient, count: Int) throws {
        try database.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO conflicts (id, collection, record_id, author_id, device_id, state, opened_at, scope_keys, entry)
                SELECT 'c-' || g, CASE WHEN g % 2 = 0 THEN 'jobs' ELSE 'reports' END, 'r-' || g, 'u', 'd', CASE WHEN g % 25 = 0 THEN 'resolved' ELSE 'open' END,
                       \(unescaped: time), ARRAY[CASE WHEN g % 3 = 0 THEN 'team:north' ELSE 'team:south' END],
                       jsonb_build_object('id', 'c-' || g, 'collection', 'jobs', 'recordId', 'r-' || g, 'opId', 'o', 'deviceId', 'd', 'authorId', 'u',
                         'state', 'open', 'openedAt', '2026-06-15T09:00:00Z', 'fields', '[]'::jsonb, 'deviceRevision', '{}'::jsonb, 'serverRevision', '{}'::jsonb)
                FROM generate_series(1, \(count)) g
                """)
        }
    }

    /// The instant the account seeds count live tokens at.
    static let now = Date(timeIntervalSince1970: 1_781_524_800)  // 2026-06-15 12:00 UTC

    /// `count` users named `User-0002`, `user-0003`, … (mixed case, ids in another order);
    /// every fourth holds two live tokens on one device, one on another, a revoked and an
    /// expired one. Ten sign-in times, some a microsecond apart, are shared by all the tokens.
    static func accounts(_ database: PostgresClient, count: Int) throws {
        try database.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO users (id, username, role, password_hash)
                SELECT 'u-' || md5(g::text), CASE WHEN g % 2 = 0 THEN 'User-' ELSE 'user-' END || lpad(g::text, 4, '0'), 'field', '!'
                FROM generate_series(1, \(count)) g
                """)
            try connection.execute(
                """
                INSERT INTO device_tokens (token_hash, user_id, device_id, created_at, expires_at, revoked_at)
                SELECT sha256(convert_to(g || '/' || n, 'UTF8')), 'u-' || md5(g::text), 'dev-' || g || '-' || CASE WHEN n < 2 THEN 0 ELSE n END,
                       timestamptz '2026-06-15 09:00:00+00' + (g % 5) * interval '1 microsecond' - (n % 2) * interval '1 hour', \(now)::timestamptz + CASE WHEN n = 4 THEN interval '-1 day' ELSE interval '1 day' END,
                       CASE WHEN n = 3 THEN \(now)::timestamptz END
                FROM generate_series(1, \(count)) g CROSS JOIN generate_series(0, 4) n WHERE g % 4 = 0
                """)
        }
    }

    /// Ops of `device`; all received in one statement, so `received_at` ties for all of them
    /// unless `spread` gives them the seed's times.
    static func ops(_ database: PostgresClient, device: String, count: Int, record: String? = nil, spread: Bool = true) throws {
        try database.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO op_log (device_id, op_id, client_seq, entity_key, author_id, collection, record_id, status, result, fingerprint, body,
                                    server_seq, received_at, decided_at)
                SELECT \(device), 'op-' || g, g % 7, 'k', 'u', 'jobs', COALESCE(\(record), 'r-' || g),
                       CASE WHEN g % 4 = 0 THEN 'rejected' ELSE 'applied' END, '{}', 'f', '{"type": "update"}',
                       CASE WHEN g % 5 = 0 THEN NULL ELSE g % 9 END,
                       CASE WHEN \(spread) THEN \(unescaped: time) ELSE now() END, CASE WHEN \(spread) THEN \(unescaped: time) ELSE now() END
                FROM generate_series(1, \(count)) g
                """)
        }
    }
}

@Suite("Keyset paging of the back-office lists")
struct BackOfficePagingTests {
    @Test("The conflict queue pages through every open conflict exactly once, oldest first, filters and counts included")
    func conflictQueue() throws {
        let database = try StorageDatabase.migrated()
        try Seed.conflicts(database, count: 250)
        let store = PostgresConflictStore(database: database)
        let all = try walk { try store.openConflicts(collection: nil, teamId: nil, after: $0, limit: 40).pageOf }
        let expected = try column(database, "SELECT id FROM conflicts WHERE state = 'open' ORDER BY opened_at, id")
        #expect(expected.count == 240)
        #expect(all.rows.map(\.entry.id) == expected && all.pages == 6)

        let filtered = try walk { try store.openConflicts(collection: "jobs", teamId: "north", after: $0, limit: 7).pageOf }
        let matching = try column(
            database,
            "SELECT id FROM conflicts WHERE state = 'open' AND collection = 'jobs' AND scope_keys = ARRAY['team:north'] ORDER BY opened_at, id")
        #expect(filtered.rows.map(\.entry.id) == matching && filtered.rows.allSatisfy { $0.teamId == "north" })
        let first = try store.openConflicts(collection: "jobs", teamId: "north", limit: 7)
        #expect(first.matching == matching.count && first.totalOpen == 240)
    }

    @Test("The order list pages through every order of one status exactly once, oldest first")
    func orders() throws {
        let database = try StorageDatabase.migrated()
        try database.withConnection { connection in
            try connection.execute(
                """
                INSERT INTO records (collection, record_id, payload, field_meta, server_seq, user_scope, schema_version, created_at)
                SELECT 'orders', 'ord-' || g,
                       jsonb_build_object('customerId', 'cu', 'lines', '[{"sku": "A", "qty": 1}]'::jsonb,
                         'status', CASE WHEN g % 6 = 0 THEN 'CONFIRMED' ELSE 'SUBMITTED' END),
                       '{}', 1000 + g, 'user:u', 3, \(unescaped: Seed.time)
                FROM generate_series(1, 150) g
                """)
        }
        let store = PostgresOrderStore(database: database)
        let submitted = try walk { try store.orders(status: .submitted, after: $0, limit: 30) }
        let expected = try column(
            database, "SELECT record_id FROM records WHERE payload->>'status' = 'SUBMITTED' ORDER BY created_at, record_id")
        #expect(submitted.rows.map(\.order.orderId) == expected && expected.count == 125 && submitted.pages == 5)
        let confirmed = try walk { try store.orders(status: .confirmed, after: $0, limit: 30) }
        #expect(confirmed.rows.count == 25 && confirmed.rows.allSatisfy { $0.order.status == .confirmed } && confirmed.pages == 1)
    }

    @Test("A journal pages newest first through ops that share a receive time, and the batch walk returns all of them")
    func journal() throws {
        let database = try StorageDatabase.migrated()
        try Seed.ops(database, device: "d-1", count: 530, spread: false)
        try Seed.ops(database, device: "d-2", count: 20)
        let store = PostgresSyncCentreStore(database: database)
        let expected = try column(
            database, "SELECT op_id FROM op_log WHERE device_id = 'd-1' ORDER BY received_at DESC, client_seq DESC, op_id DESC")
        let paged = try walk { try store.journal(deviceId: "d-1", status: nil, after: $0, limit: 200) }
        #expect(paged.rows.map(\.opId) == expected && paged.pages == 3)
        let rejected = try walk { try store.journal(deviceId: "d-1", status: .rejected, after: $0, limit: 50) }
        #expect(rejected.rows.count == 132 && rejected.rows.allSatisfy { $0.status == .rejected })

        var batches: [[JournalEntry]] = []
        try store.forEachJournalBatch(deviceId: "d-1", status: nil, batchSize: 100) { batches.append($0) }
        #expect(batches.flatMap { $0 }.map(\.opId) == expected)
        #expect(batches.map(\.count) == [100, 100, 100, 100, 100, 30])
    }

    @Test("A record's history pages in settled order, ops without a server sequence last among equals")
    func history() throws {
        let database = try StorageDatabase.migrated()
        try Seed.ops(database, device: "d-1", count: 40, record: "r-x")
        try Seed.ops(database, device: "d-2", count: 40, record: "r-x")
        let store = PostgresSyncCentreStore(database: database)
        let paged = try walk { try store.history(collection: "jobs", recordId: "r-x", teamId: nil, after: $0, limit: 7) }
        let expected = try column(
            database,
            """
            SELECT device_id || '/' || op_id FROM op_log WHERE record_id = 'r-x'
            ORDER BY decided_at, server_seq NULLS LAST, received_at, client_seq, device_id, op_id
            """)
        #expect(paged.rows.map { "\($0.deviceId)/\($0.opId)" } == expected && expected.count == 80 && paged.pages == 12)
    }

    @Test("The device list pages most recently synced first, never-synced devices last, and counts app versions per team")
    func devices() throws {
        let database = try StorageDatabase.migrated()
        try database.withConnection { connection in
            try connection.executeScript(
                """
                INSERT INTO teams (id) VALUES ('north'), ('south');
                INSERT INTO users (id, username, role, team_id, password_hash) VALUES ('un', 'un', 'field', 'north', '!'), ('us', 'us', 'field', 'south', '!');
                INSERT INTO devices (device_id, user_id, app_version, last_sync_at)
                SELECT 'dev-' || g, CASE WHEN g % 2 = 0 THEN 'un' ELSE 'us' END, CASE WHEN g % 3 = 0 THEN '1.0.0' ELSE '2.0.0' END,
                       CASE WHEN g % 8 = 0 THEN NULL ELSE timestamptz '2026-06-15 09:00:00+00' + (g / 10) * interval '1 second' + (g % 3) * interval '1 microsecond' END
                FROM generate_series(1, 45) g;
                """)
        }
        let store = PostgresSyncCentreStore(database: database)
        let all = try walk { try store.devices(teamId: nil, after: $0, limit: 10) }
        let expected = try column(database, "SELECT device_id FROM devices ORDER BY last_sync_at DESC NULLS LAST, device_id")
        #expect(all.rows.map(\.deviceId) == expected && all.pages == 5)
        let north = try walk { try store.devices(teamId: "north", after: $0, limit: 4) }
        #expect(north.rows.count == 22 && north.rows.allSatisfy { $0.teamId == "north" } && Set(north.rows.map(\.deviceId)).count == 22)
        let versions = try store.appVersionCounts(teamId: "north")
        #expect(versions.reduce(0) { $0 + $1.count } == 22 && versions.first { $0.version == "1.0.0" }?.count == 7)
        #expect(try store.device(id: "dev-8")?.lastSyncAt == nil && store.device(id: "nobody") == nil)
    }

    @Test("The user list pages by name, case-insensitively, through every user exactly once, with their live devices")
    func users() throws {
        let database = try StorageDatabase.migrated()
        try Seed.accounts(database, count: 230)
        let store = PostgresAccountStore(database: database)
        let paged = try walk { try store.users(devicesLiveAt: Seed.now, after: $0, limit: 50) }
        let expected = try column(database, "SELECT id FROM users ORDER BY lower(username), id")
        #expect(paged.rows.map(\.account.id) == expected && expected.count == 230 && paged.pages == 5)
        #expect(paged.rows.map(\.account.id) != paged.rows.sorted { $0.account.id < $1.account.id }.map(\.account.id), "ids are not in name order")
        for user in paged.rows {
            let number = try #require(Int(user.account.username.suffix(4)))
            #expect(user.liveDevices == (number % 4 == 0 ? 2 : 0), "\(user.account.username)")
        }
        #expect(try store.users(devicesLiveAt: Seed.now, limit: 230).next == nil, "a page that holds every user is the last")
        #expect(try store.listUsers().map(\.id) == expected, "the command line still lists everyone at once")
    }

    @Test("The token list pages newest first through every token once, optionally only live ones, and counts both")
    func tokens() throws {
        let database = try StorageDatabase.migrated()
        try Seed.accounts(database, count: 240)
        let store = PostgresAccountStore(database: database)
        let order = "ORDER BY created_at DESC, token_hash DESC"
        let all = try walk { try store.tokens(liveAt: nil, after: $0, limit: 40) }
        let expected = try column(database, "SELECT encode(token_hash, 'hex') FROM device_tokens \(unescaped: order)")
        #expect(all.rows.map(\.tokenId) == expected && expected.count == 300 && all.pages == 8)
        let live = try walk { try store.tokens(liveAt: Seed.now, after: $0, limit: 40) }
        let expectedLive = try column(
            database, "SELECT encode(token_hash, 'hex') FROM device_tokens WHERE revoked_at IS NULL AND expires_at > \(Seed.now) \(unescaped: order)")
        #expect(live.rows.map(\.tokenId) == expectedLive && expectedLive.count == 180 && live.pages == 5)
        #expect(try store.tokenCounts(liveAt: Seed.now) == TokenCounts(live: 180, all: 300))

        let owner = try #require(all.rows.last?.userId)
        #expect(try store.listTokens(userId: owner).map(\.tokenId) == all.rows.filter { $0.userId == owner }.map(\.tokenId))
        #expect(try store.token(id: expected[7])?.tokenId == expected[7])
        #expect(try store.token(id: String(repeating: "0", count: 64)) == nil && store.token(id: "not hex") == nil)
    }

    @Test("A cursor of the wrong shape is refused before it reaches SQL, for every list")
    func invalidCursors() throws {
        let database = try StorageDatabase.migrated()
        let conflicts = PostgresConflictStore(database: database)
        let sync = PostgresSyncCentreStore(database: database)
        let orders = PostgresOrderStore(database: database)
        let accounts = PostgresAccountStore(database: database)
        let bad: [PageCursor] = [
            PageCursor([]), PageCursor(["2026-06-15T09:00:00.000000Z"]), PageCursor(["now", "c-1"]),
            PageCursor(["2026-02-30T00:00:00.000000Z", "c"]),
            PageCursor(["2026-06-15 09:00:00", "c"]), PageCursor(["2026-06-15T09:00:00.000000Z", "c\u{0}"]), PageCursor(["x", "y", "z", "w"]),
        ]
        for cursor in bad {
            #expect(throws: PageCursor.Invalid.self) { try conflicts.openConflicts(collection: nil, teamId: nil, after: cursor) }
            #expect(throws: PageCursor.Invalid.self) { try orders.orders(status: .submitted, after: cursor) }
            #expect(throws: PageCursor.Invalid.self) { try sync.devices(teamId: nil, after: cursor) }
            #expect(throws: PageCursor.Invalid.self) { try accounts.tokens(liveAt: nil, after: cursor) }
        }
        for tokenId in ["abc", "ABCD", "zz", "ab cd", "0x12"] {
            #expect(throws: PageCursor.Invalid.self) { try accounts.tokens(liveAt: nil, after: PageCursor(["infinity", tokenId])) }
        }
        for cursor in [PageCursor([]), PageCursor(["user"]), PageCursor(["user", "u-1", "x"]), PageCursor(["user\u{0}", "u-1"])] {
            #expect(throws: PageCursor.Invalid.self) { try accounts.users(devicesLiveAt: Seed.now, after: cursor) }
        }
        #expect(try accounts.tokens(liveAt: nil, after: PageCursor(["2026-06-15T09:00:00.000000Z", ""])).rows.isEmpty)
        #expect(try accounts.users(devicesLiveAt: Seed.now, after: PageCursor(["zzz", ""])).rows.isEmpty)
        #expect(throws: PageCursor.Invalid.self) { try sync.journal(deviceId: "d", status: nil, after: PageCursor(["infinity", "1.5", "o"])) }
        #expect(throws: PageCursor.Invalid.self) {
            try sync.history(collection: "jobs", recordId: "r", teamId: nil, after: PageCursor(["-infinity", "0", "-infinity", "0", ""]))
        }
        #expect(try sync.journal(deviceId: "d", status: nil, after: PageCursor(["2024-02-29T23:59:59.999999Z", "-3", "o"])).rows.isEmpty)
    }
}

extension OpenConflicts {
    /// The open conflicts as a plain page, for the walker.
    fileprivate var pageOf: PageOf<NamedConflict> { PageOf(rows: conflicts, next: next) }
}
