import AppTesting
import FieldSyncClient
import Foundation
import SyncProtocol
import Testing

/// Two devices edit the same record offline: the server decides field by field, and the
/// device that lost shows both values until its user chooses.
@Suite("Conflicts from two devices")
struct ConflictTests {
    /// Ana and Ben, same team, both holding `jobs/job-1` as the server has it.
    private func twoDevicesOnOneJob(_ bed: SDKTestBed) async throws -> (ana: TestDevice, ben: TestDevice) {
        let ana = try await bed.device()
        let ben = try await bed.device()
        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler", "status": "in_progress", "notes": "start", "teamId": "team-1"])
        try await ana.client.sync()
        try await ben.client.sync()
        return (ana, ben)
    }

    @Test("A field lost to the precedence table becomes an issue with both values; the merged field applies; keeping the server's clears it")
    func precedenceConflict() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let (ana, ben) = try await twoDevicesOnOneJob(bed)
        try await ben.client.update("jobs", id: "job-1", ["status": "on_hold"])
        try await ben.client.sync()

        try await ana.client.update("jobs", id: "job-1", ["status": "complete", "labor_minutes": 135])
        let status = try await ana.client.sync()

        #expect(status.state == .needsAttention(.issues(1)) && status.description == "1 change needs your review")
        let issue = try #require(try await ana.client.issues().first)
        #expect(issue.status == .conflict && issue.code == .fieldConflict && issue.localValues == ["status": "complete", "labor_minutes": 135])
        let conflict = try #require(issue.conflicts.first)
        #expect(conflict.field == "status" && conflict.clientNew == "complete" && conflict.serverCurrent == "on_hold")
        #expect(issue.message == "Conflict on jobs/job-1: status is on_hold on the server, you set complete.")
        #expect(try await ana.client.record("jobs", id: "job-1")?.fields["status"] == "on_hold")
        #expect(try bed.serverRecord("jobs", "job-1")?["labor_minutes"] == 135)

        try await ana.client.resolve(issue, keeping: .server)

        #expect(try await ana.client.issues().isEmpty)
        #expect(try await ana.client.sync().description == "All changes synced")
    }

    @Test("Keeping the device's value after a server-wins conflict sends it again on the current state")
    func keepDeviceValue() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let (ana, ben) = try await twoDevicesOnOneJob(bed)
        try await ben.client.update("jobs", id: "job-1", ["notes": "from ben"])
        try await ben.client.sync()
        try await ana.client.update("jobs", id: "job-1", ["notes": "from ana"])
        try await ana.client.sync()
        let issue = try #require(try await ana.client.issues().first)
        #expect(issue.conflicts.map(\.serverCurrent) == ["from ben"])

        try await ana.client.resolve(issue, keeping: .device)
        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced" && status.issueCount == 0)
        #expect(try bed.serverRecord("jobs", "job-1")?["notes"] == "from ana")
        try await ben.client.sync()
        #expect(try await ben.client.record("jobs", id: "job-1")?.fields["notes"] == "from ana")
    }

    @Test("A manual-policy conflict waits for review with nothing overwritten, and leaves the device once the office settles it")
    func reviewQueue() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()
        let ben = try await bed.device()
        try await ana.client.create("reports", id: "rep-1", ["assignmentId": "as-1", "answers": ["pressure": 3], "teamId": "team-1"])
        try await ana.client.sync()
        try await ben.client.sync()
        try await ben.client.update("reports", id: "rep-1", ["answers": ["pressure": 4]])
        try await ben.client.sync()

        try await ana.client.update("reports", id: "rep-1", ["answers": ["pressure": 5]])
        try await ana.client.sync()

        let issue = try #require(try await ana.client.issues().first)
        #expect(issue.code == .reviewRequired && issue.conflictId != nil)
        #expect(issue.message == "Your edit of reports/rep-1 overlaps another change and waits for review. Nothing was overwritten.")
        #expect(try bed.serverRecord("reports", "rep-1")?["answers"] == ["pressure": 4])
        #expect(try await ana.client.record("reports", id: "rep-1")?.openConflictId == issue.conflictId)

        let dispatcher = try await bed.server.makeDevice(role: .dispatcher, team: nil, deviceId: "office")
        let resolved = try await bed.server.client.post(
            "/v1/conflicts/\(issue.conflictId ?? "")/resolve", json: ResolveRequest(choice: .device), token: dispatcher.token)
        #expect(resolved.status == 200)
        let status = try await ana.client.sync()

        #expect(status.description == "All changes synced")
        #expect(try await ana.client.record("reports", id: "rep-1")?.fields["answers"] == ["pressure": 5])
    }

    @Test("A rejected edit leaves the queue with the server's reason; the rest of the queue still syncs")
    func rejection() async throws {
        let bed = try await SDKTestBed.start()
        defer { bed.finish() }
        let ana = try await bed.device()

        try await ana.client.create("jobs", id: "job-1", ["title": "Boiler", "labor_minutes": -5])
        try await ana.client.create("jobs", id: "job-2", ["title": "Pump"])
        let status = try await ana.client.sync()

        #expect(status.pendingChanges == 0 && status.issueCount == 1)
        let issue = try #require(try await ana.client.issues().first)
        #expect(issue.status == .rejected && issue.code == .validationFailed && issue.field == "labor_minutes")
        #expect(issue.message.hasPrefix("This edit of jobs/job-1 could not be accepted: labor_minutes"))
        #expect(try bed.serverRecord("jobs", "job-2") != nil && bed.serverRecord("jobs", "job-1") == nil)
    }
}
