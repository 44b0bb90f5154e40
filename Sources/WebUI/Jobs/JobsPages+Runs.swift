import Foundation
import HTTP
import SyncEngine

/// `GET /admin/jobs/runs/{id}`: one run's progress as JSON, which the jobs page polls to move a
/// running job's progress bar; `POST /admin/jobs/seen`: "Mark as seen" on the dashboard's
/// banner of failed runs.
extension JobsPages {
    /// A run as the jobs page's script reads it.
    struct RunProgress: Encodable {
        let id: Int64
        let job: String
        let outcome: String
        let done: Int
        let total: Int?
        /// `done of total`, as the page prints it.
        let text: String
    }

    /// Runs one "Mark as seen" may name: more than a banner ever lists.
    static let seenLimit = 100

    func registerRuns(on routes: BackOfficePages) {
        routes.add(.GET, Area.jobs.path + "/runs/{id}", area: .jobs, handler: progress)
        routes.add(.POST, Area.jobs.path + "/seen", area: .jobs, handler: markSeen)
    }

    @Sendable func progress(_ context: WebContext) throws -> Response {
        guard let id = Self.runId(try context.request.parameter("id")), let run = try runs.run(id) else { throw PageError.notFound }
        return try .json(
            RunProgress(id: run.id, job: run.job, outcome: run.outcome.rawValue, done: run.done, total: run.total, text: Self.progressText(run)))
    }

    /// Acknowledges the failed runs the banner listed (`runs`: their ids, comma-separated), as
    /// seen by the admin; failures that came after stay flagged.
    @Sendable func markSeen(_ context: WebContext) throws -> Response {
        let text = context.form["runs"] ?? ""
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty, text.utf8.count <= Self.seenLimit * 20, parts.count <= Self.seenLimit else {
            throw HTTPFailure.invalidField("runs", message: "runs must list 1 to \(Self.seenLimit) run ids, comma-separated")
        }
        let ids = try parts.map { part -> Int64 in
            guard let id = Self.runId(part) else { throw HTTPFailure.invalidField("runs", message: "runs must list run ids, comma-separated") }
            return id
        }
        try runs.acknowledgeFailures(by: context.session.user.id, runs: ids)
        return .redirect(to: Area.dashboard.path)
    }

    /// A run id as a page sends it: digits only, within Int64.
    static func runId(_ text: some StringProtocol) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// `done of total`, or `done` while the total is not known.
    static func progressText(_ run: JobRun) -> String {
        run.total.map { "\(Formatting.count(run.done)) of \(Formatting.count($0))" } ?? Formatting.count(run.done)
    }
}
