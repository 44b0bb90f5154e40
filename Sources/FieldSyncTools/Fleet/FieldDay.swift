import App
import Support

/// What one device does in a simulated field day. `full` is a technician's real day; every
/// count can be scaled down (`--scale`) or set one by one.
struct FieldDay: Sendable {
    /// Jobs the device creates in the morning and keeps updating all day.
    var jobs = 10
    /// Site visits, each checked in, worked and checked out (four ops).
    var visits = 30
    /// Inspection reports, each with `photosPerReport` photos.
    var reports = 30
    var photosPerReport = 2
    /// Bytes of each photo (random, so as incompressible as a JPEG).
    var photoBytes = 400_000
    var orders = 5
    /// Small updates of the jobs' status and labour minutes.
    var statusUpdates = 150
    /// Jobs whose notes a dispatcher changes while the device edits them offline.
    var collisions = 2

    static let full = FieldDay()

    /// The day's options, for a command's `valueOptions`.
    static let options: Set<String> = ["scale", "visits", "reports", "photo-bytes", "orders", "status-updates", "collisions"]

    /// The options' help lines.
    static let help = """
          --scale F          multiply every count of the day by F (0 < F <= 1; default 1)
          --visits N         visits with check-in and check-out (default 30)
          --reports N        reports with 2 photos each (default 30)
          --photo-bytes B    bytes per photo (default 400000)
          --orders N         orders (default 5)
          --status-updates N job status updates (default 150)
          --collisions N     jobs a dispatcher edits while the device does (default 2, at most 9)
        """

    /// The full day, scaled and then overridden by the options given.
    /// - Throws: `CommandError` for a value out of range.
    init(_ arguments: CommandLineArguments, base: FieldDay = .full) throws {
        self = base
        if let text = arguments.value("scale") {
            guard let scale = Double(text), scale > 0, scale <= 1 else { throw CommandError("--scale must be a number above 0 and at most 1") }
            func scaled(_ count: Int) -> Int { max(1, Int((Double(count) * scale).rounded())) }
            (visits, reports, orders, statusUpdates) = (scaled(visits), scaled(reports), scaled(orders), scaled(statusUpdates))
        }
        visits = try arguments.number("visits", visits, minimum: 0)
        reports = try arguments.number("reports", reports, minimum: 0)
        photoBytes = try arguments.number("photo-bytes", photoBytes)
        orders = try arguments.number("orders", orders, minimum: 0)
        statusUpdates = try arguments.number("status-updates", statusUpdates, minimum: 0)
        collisions = try arguments.number("collisions", collisions, minimum: 0)
        guard collisions < jobs else { throw CommandError("--collisions must be at most \(jobs - 1)") }
        guard photoBytes <= 20_000_000 else { throw CommandError("--photo-bytes must be at most 20000000") }
    }

    init() {}

    /// Ops the device's day produces: jobs, four per visit, one per report, order, status
    /// update and collision edit.
    var ops: Int { jobs + visits * 4 + reports + orders + statusUpdates + collisions }
    var photos: Int { reports * photosPerReport }
    var photoBytesTotal: Int64 { Int64(photos) * Int64(photoBytes) }
}
