import App
import AppTesting
import Foundation
import Postgres
import Storage
import SyncAPI
import SyncEngine
import SyncProtocol

/// Making events and opening feeds in live-event tests.
extension TestServer {
    /// The running server's live feed.
    var liveFeed: LiveFeedFeature { application.feature(LiveFeedFeature.self)! }

    /// Creates `count` jobs as `user` through the push service, in batches of up to 50 ops
    /// (one transaction each): one `record.changed` per job, for the user's and its team's keys.
    /// - Returns: the jobs' record ids, in commit order.
    @discardableResult
    func createJobs(_ count: Int, as user: UserAccount) throws -> [String] {
        let device = "dev-\(UUID().uuidString.prefix(8))"
        let principal = Principal(userId: user.id, role: user.role, teamId: user.teamId, deviceId: device)
        let ids = (0..<count).map { "job-\(device)-\($0)" }
        var clientSeq: Int64 = 0
        for batch in stride(from: 0, to: count, by: 50) {
            let ops = ids[batch..<min(count, batch + 50)].map { id -> PushOp in
                clientSeq += 1
                return PushOp(
                    opId: "op-\(id)", clientSeq: clientSeq, collection: "jobs", recordId: id, type: .create,
                    occurredAt: RFC3339.string(from: Date()), fields: ["title": FieldChange(new: .string("Job \(id)"))])
            }
            let outcome = try core.pushes.push(PushRequest(deviceId: device, schemaVersion: core.schema.version, ops: ops), by: principal)
            guard outcome.results.allSatisfy({ $0.status == .applied }) else { throw TestServerError("jobs not applied: \(outcome.results)") }
        }
        return ids
    }

    /// Opens `GET /v1/events` with `token` and checks that it answers 200 as an event stream.
    func openFeed(token: String, lastEventId: String? = nil) async throws -> EventStreamConnection {
        let feed = try EventStreamConnection(port: application.port, token: token, lastEventId: lastEventId)
        let status = try await feed.open()
        guard status == 200, feed.headers["content-type"]?.hasPrefix("text/event-stream") == true else {
            throw TestServerError("the feed answered \(status) \(feed.headers)")
        }
        return feed
    }

    /// Commits `count` `record.changed` events of 64 KiB each for `user`, straight into the outbox.
    /// - Returns: their record ids.
    func appendLargeEvents(_ count: Int, for user: UserAccount, prefix: String) throws -> [String] {
        let subjects = (0..<count).map { "\(prefix)-\($0)" }
        let padding = JSONValue.string(String(repeating: "x", count: 64 << 10))
        let events = subjects.map { subject in
            PendingEvent(
                type: .recordChanged, data: ["collection": "jobs", "recordId": .string(subject), "padding": padding],
                audience: [.user(user.id)])
        }
        try core.database.withTransaction { try EventOutbox.append(events, on: $0) }
        return subjects
    }

    /// Backdates every event with an id above `id` by ten minutes: out of the replay window.
    func ageEvents(after id: Int64) throws {
        try core.database.withConnection { connection in
            try connection.execute("UPDATE events SET created_at = now() - interval '10 minutes' WHERE id > \(id)")
        }
    }

    /// Deletes events up to `id`, as the retention job deletes old rows.
    func deleteEvents(through id: Int64) throws {
        try core.database.withConnection { connection in
            try connection.execute("DELETE FROM events WHERE id <= \(id)")
        }
    }
}

extension EventStreamConnection.Event {
    /// The `data:` JSON.
    var json: JSONValue {
        (try? JSONDecoder().decode(JSONValue.self, from: Data(data.utf8))) ?? .null
    }

    /// The `id:` as a number (0 when absent).
    var number: Int64 { id.flatMap { Int64($0) } ?? 0 }

    /// The record or order the event is about.
    var subject: String? { json["recordId"]?.stringValue ?? json["orderId"]?.stringValue }
}
