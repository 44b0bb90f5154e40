import SyncEngine
import SyncEngineTesting
import SyncProtocol
import Testing

@Suite("The office's assignment writes, as pushes of its back-office device")
struct AssignmentDeskTests {
    static let key = RecordKey(collection: "assignments", recordId: "asg-1")
    static let fields: [String: JSONValue] = ["title": "Check pump", "status": "open", "siteId": .null, "assigneeId": "u-ana", "teamId": "t-1"]

    static func desk(_ harness: Harness) -> AssignmentDesk {
        AssignmentDesk(pushes: harness.service, clock: { harness.clock.now }, makeId: { harness.ids.next() })
    }

    @Test("a create is numbered after the device's high-water mark and leaves null fields out")
    func create() throws {
        let harness = try Harness()
        let desk = Self.desk(harness)
        let first = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: nil, fields: Self.fields), by: People.dora)
        guard case .pushed(let result) = first else { Issue.record("nothing pushed"); return }
        #expect(result.status == .applied)
        let record = try #require(harness.record("assignments", "asg-1"))
        #expect(record.payload["siteId"] == nil && record.payload["assigneeId"] == "u-ana")
        #expect(harness.state.highWater["web:u-dora"] == 1)
        let other = RecordKey(collection: "assignments", recordId: "asg-2")
        _ = try desk.save(AssignmentEdit(key: other, baseServerSeq: nil, fields: Self.fields), by: People.dora)
        #expect(harness.state.highWater["web:u-dora"] == 2)
        #expect(harness.state.opLog["web:u-dora"]?.values.allSatisfy { $0.authorId == "u-dora" } == true)
    }

    @Test("an edit sends only the fields that differ from the stored record, and nothing when none does")
    func edit() throws {
        let harness = try Harness()
        let desk = Self.desk(harness)
        _ = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: nil, fields: Self.fields), by: People.dora)
        let base = try #require(harness.record("assignments", "asg-1")).serverSeq
        #expect(try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: base, fields: Self.fields), by: People.dora) == .unchanged)
        #expect(harness.state.highWater["web:u-dora"] == 1)

        var moved = Self.fields
        moved["assigneeId"] = "u-carla"
        moved["teamId"] = "t-2"
        guard case .pushed(let result) = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: base, fields: moved), by: People.dora) else {
            Issue.record("nothing pushed")
            return
        }
        #expect(result.status == .applied)
        let record = try #require(harness.record("assignments", "asg-1"))
        #expect(record.payload["assigneeId"] == "u-carla" && record.payload["teamId"] == "t-2")
        #expect(Set(record.fieldMeta.filter { $0.value.seq == record.serverSeq }.keys) == ["assigneeId", "teamId"])
    }

    @Test("a field another device changed after the form's base is a conflict the office sees; its other fields merge")
    func conflict() throws {
        let harness = try Harness()
        let desk = Self.desk(harness)
        _ = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: nil, fields: Self.fields), by: People.dora)
        let base = try #require(harness.record("assignments", "asg-1")).serverSeq
        var done = Self.fields
        done["status"] = "done"
        _ = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: base, fields: done), by: People.adam)

        var stale = Self.fields
        stale["title"] = "Check both pumps"
        guard case .pushed(let result) = try desk.save(AssignmentEdit(key: Self.key, baseServerSeq: base, fields: stale), by: People.dora) else {
            Issue.record("nothing pushed")
            return
        }
        #expect(result.status == .conflict && result.code == .fieldConflict)
        #expect(result.conflicts?.map(\.field) == ["status"] && result.conflicts?.first?.serverCurrent == "done")
        #expect(result.appliedFields == ["title"])
        let record = try #require(harness.record("assignments", "asg-1"))
        #expect(record.payload["status"] == "done" && record.payload["title"] == "Check both pumps")
    }
}
