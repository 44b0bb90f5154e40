import App
import Foundation
import Seeding
import Storage
import Support
import SyncEngine

/// `fieldsync bench web`: the server time of every back-office page on a large database.
struct BenchWebCommand: Command {
    let path = ["bench", "web"]
    let summary = "measure back-office page times (p50/p95) on a seeded database"
    let valueOptions: Set<String> = ["requests", "warmup", "devices", "ops", "conflicts"]
    let usage = """
        Usage: fieldsync bench web [--requests 100] [--warmup 5] [--devices 1000] [--ops 100000] [--conflicts 1000]

        Starts FieldSync on a throwaway embedded PostgreSQL and loads it with set-based SQL:
        --devices field users in teams of 20 with one device each (app versions on both sides
        of the minimum, live, expired and revoked tokens), --ops op log entries spread over
        the devices (applied, deferred, rejected and conflict outcomes) with the records they
        made, --conflicts open conflicts in the review queue, and one order per device (three
        in ten submitted); then VACUUM ANALYZE and CHECKPOINT.
        It signs in as admin through the sign-in form and requests each back-office page
        --requests times in a row on one keep-alive loopback connection, after --warmup
        untimed requests, cycling through sample devices, records, conflicts, orders and
        users (the search page looks for their ids, and for short prefixes that match many).
        GET /v1/team/rollup is requested with a supervisor's device token. Ten reports
        get photos (one stored, one uploading, one missing each) for the photo pages. The
        "Confirm selected" page is posted with the most orders a selection may hold (its
        "Are you sure?" step, which changes nothing).
        Prints p50 and p95 per page against the 50 ms target: the time from sending a request
        to receiving the whole body. Nothing is asserted.
        """

    /// The figure every page should stay under at p95.
    static let targetMilliseconds = 50.0

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let requests = try arguments.number("requests", 100)
        let warmup = try arguments.number("warmup", 5, minimum: 0)
        let volume = BackOfficeVolume(
            devices: try arguments.number("devices", 1_000), ops: try arguments.number("ops", 100_000),
            openConflicts: try arguments.number("conflicts", 1_000, minimum: 0))
        let bench = try BenchServer.start(environment: environment)
        defer { bench.stop() }
        try bench.updateSettings()
        let core = bench.application.core

        let seeder = BackOfficeSeeder(database: core.database)
        let seconds =
            try measureMilliseconds {
                try seeder.seed(volume)
                try seeder.settle()
            } / 1000
        print(
            String(
                format: "FieldSync back-office benchmark: %d devices, %d ops, %d open conflicts loaded in %.1f s",
                volume.devices, volume.devices * volume.opsPerDevice, volume.openConflicts, seconds))
        let samples = try seeder.samples()
        let photoPages = try BenchPhotos.pages(core, seeder: seeder)
        let supervisor = try core.accounts.issueToken(
            userId: samples.supervisorId, deviceId: "bench-web-supervisor", platform: "bench", appVersion: "9.9.9", lifetime: 3600)
        let browser = try BackOfficeBrowser(port: bench.application.port)
        try browser.signIn(username: "admin", password: BenchServer.adminPassword)
        print("\(requests) sequential requests per page after \(warmup) warm-up, one keep-alive loopback connection\n")
        print(WebPageTiming.header)
        let selection = WebPage.selection(
            try seeder.submittedOrderIds(limit: OrderSelection.limit), csrfToken: try browser.csrfToken(at: "/admin/orders"))
        let pages =
            WebPage.all(samples, supervisorToken: supervisor.token) + photoPages + [selection]
            + WebPage.assignments(samples, ids: try seeder.assignmentSamples())
        for page in pages {
            print(try WebPageTiming.measure(page, with: browser, requests: requests, warmup: warmup).line)
        }
        return 0
    }
}

/// A back-office page to time: the URLs it cycles through and the headers they need.
struct WebPage {
    let name: String
    let targets: [String]
    var headers: [(String, String)] = []
    /// Fields to post instead of a GET (with the CSRF token among them).
    var form: [(String, String)]? = nil

    /// The "Are you sure?" page of "Confirm selected" for `orderIds`.
    static func selection(_ orderIds: [String], csrfToken: String) -> WebPage {
        WebPage(
            name: "confirm selected (\(orderIds.count) orders)", targets: ["/admin/orders"],
            form: orderIds.map { ("order", $0) } + [("_csrf", csrfToken)])
    }

    /// Every page the back-office serves for reading, on the sampled rows.
    static func all(_ samples: BackOfficeSamples, supervisorToken: String) -> [WebPage] {
        let devices = samples.deviceIds.map { "/admin/sync/devices/\($0)" }
        return [
            WebPage(name: "dashboard", targets: ["/admin"]),
            WebPage(name: "sync centre", targets: ["/admin/sync"]),
            WebPage(name: "device journal", targets: devices),
            WebPage(name: "journal ?status=rejected", targets: devices.map { $0 + "?status=rejected" }),
            WebPage(name: "journal CSV export", targets: devices.map { $0 + "?format=csv" }),
            WebPage(name: "journal JSON export", targets: devices.map { $0 + "?format=json" }),
            WebPage(name: "record history", targets: samples.records.map { "/admin/sync/records/\($0.collection)/\($0.recordId)" }),
            WebPage(name: "conflict queue", targets: ["/admin/conflicts"]),
            WebPage(name: "conflicts ?collection=reports", targets: ["/admin/conflicts?collection=reports"]),
            WebPage(name: "conflicts ?team=", targets: ["/admin/conflicts?team=\(samples.teamId)"]),
            WebPage(name: "conflict detail", targets: samples.openConflictIds.map { "/admin/conflicts/\($0)" }),
            WebPage(name: "orders queue", targets: ["/admin/orders"]),
            WebPage(name: "orders queue ?select=all", targets: ["/admin/orders?select=all"]),
            WebPage(name: "order detail", targets: samples.submittedOrderIds.map { "/admin/orders/\($0)" }),
            WebPage(name: "team roll-up", targets: ["/admin/team?team=\(samples.teamId)"]),
            WebPage(name: "users", targets: ["/admin/users"]),
            WebPage(name: "user page", targets: samples.fieldUserIds.map { "/admin/users/\($0)" }),
            WebPage(name: "devices", targets: ["/admin/devices"]),
            WebPage(name: "settings", targets: ["/admin/settings"]),
            WebPage(
                name: "search by id",
                targets: (samples.records.map(\.recordId) + samples.deviceIds + samples.submittedOrderIds).map(Self.searchPath)),
            WebPage(name: "search, broad prefix", targets: ["j", "dev", "field", "cust-", "u"].map(Self.searchPath)),
            WebPage(
                name: "GET /v1/team/rollup (supervisor)", targets: ["/v1/team/rollup"],
                headers: [("Authorization", "Bearer \(supervisorToken)"), ("X-App-Version", "9.9.9")]),
        ]
    }
}

extension WebPage {
    /// The assignment pages: the lists, the new-assignment form, and an assignment's and a job's form.
    static func assignments(_ samples: BackOfficeSamples, ids: [String]) -> [WebPage] {
        [
            WebPage(name: "assignments", targets: ["/admin/assignments"]),
            WebPage(name: "assignments ?team=", targets: ["/admin/assignments?team=\(samples.teamId)"]),
            WebPage(name: "assignments ?kind=jobs&user=", targets: samples.fieldUserIds.map { "/admin/assignments?kind=jobs&user=\($0)" }),
            WebPage(name: "new assignment", targets: ["/admin/assignments/new"]),
            WebPage(name: "assignment form", targets: ids.map { "/admin/assignments/assignments/\($0)" }),
            WebPage(name: "job move form", targets: samples.records.map { "/admin/assignments/\($0.collection)/\($0.recordId)" }),
        ]
    }

    static func searchPath(_ text: String) -> String {
        "/admin/search?q=" + (text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}

/// One page's measured times.
struct WebPageTiming {
    let page: WebPage
    let latencies: Latencies
    let averageBytes: Int

    /// Requests `page` `warmup + requests` times in a row; times all but the warm-up.
    /// - Throws: `CommandError` when an answer is not 200 or has no body.
    static func measure(_ page: WebPage, with browser: BackOfficeBrowser, requests: Int, warmup: Int) throws -> WebPageTiming {
        var latencies = Latencies()
        var bytes = 0
        for index in 0..<(warmup + requests) {
            let target = page.targets[index % page.targets.count]
            var answer: LoopbackResponse?
            let time = try measureMilliseconds {
                answer = try page.form.map { try browser.post(target, form: $0) } ?? browser.get(target, headers: page.headers)
            }
            guard let answer, answer.status == 200, !answer.body.isEmpty else {
                throw CommandError("\(page.form == nil ? "GET" : "POST") \(target) answered \(answer?.status ?? 0)")
            }
            guard index >= warmup else { continue }
            latencies.add(time)
            bytes += answer.body.count
        }
        return WebPageTiming(page: page, latencies: latencies, averageBytes: bytes / max(requests, 1))
    }

    static let header =
        "page".padding(toLength: 34, withPad: " ", startingAt: 0) + "  p50 ms  p95 ms  target    body KB"

    var line: String {
        let p95 = latencies.percentile(95)
        let verdict = p95 < BenchWebCommand.targetMilliseconds ? "ok  " : "OVER"
        return page.name.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(format: "%8.1f%8.1f  < %.0f ", latencies.percentile(50), p95, BenchWebCommand.targetMilliseconds) + verdict
            + String(format: "%9.1f", Double(averageBytes) / 1024)
    }
}
