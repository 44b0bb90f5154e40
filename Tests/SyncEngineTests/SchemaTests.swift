import Foundation
import SyncEngine
import SyncProtocol
import Testing

@Suite("Schema")
struct SchemaTests {
    /// A minimal schema document with one collection whose fields are `fields`.
    private func schema(_ fields: String, collection: String = #""policy": "field-merge""#, root: String = "") throws -> Schema {
        let text = #"{"version": 3, \#(root) "collections": {"things": {\#(collection), "fields": {\#(fields)}}}}"#
        return try Schema(jsonData: Data(text.utf8))
    }

    private func error(_ body: () throws -> Schema) -> SchemaError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? SchemaError
        }
    }

    @Test("The built-in schema declares PROTOCOL.md's collections and rules")
    func builtIn() throws {
        let schema = try Schema.builtIn()
        #expect(schema.version == 3)
        #expect(Set(schema.collections.keys) == ["assignments", "reports", "jobs", "part_usage", "visits", "orders"])
        for collection in schema.collections.values {
            #expect(collection.fields["assigneeId"]?.type == .string && collection.fields["teamId"]?.type == .string)
        }
        let jobs = try #require(schema.collections["jobs"])
        #expect(jobs.fields["status"]?.precedence == ["cancelled", "on_hold", "complete", "in_progress"])
        #expect(jobs.fields["labor_minutes"]?.minimum == 0)
        #expect(schema.collections["reports"]?.policy == .manual)
        #expect(schema.collections["assignments"]?.writeRoles == [.dispatcher, .admin])
        #expect(schema.collections["assignments"]?.fields["status"]?.defaultValue == "open")
        #expect(schema.collections["visits"]?.lock == LockRule(field: "status", values: ["done"]))
        #expect(schema.collections["visits"]?.fields["status"]?.transitions?["planned"] == ["checked_in", "not_done"])
        let orders = try #require(schema.collections["orders"])
        #expect(orders.fields["status"]?.writeRoles == [.dispatcher, .admin] && orders.fields["status"]?.defaultValue == "SUBMITTED")
        #expect(!orders.canWrite("rejectionReason", role: .field) && orders.canWrite("note", role: .field))
        guard case .array(let items?) = orders.fields["lines"]?.type, case .object(let shape?) = items.type else {
            Issue.record("order lines must be an array of {sku, qty}")
            return
        }
        #expect(shape["qty"]?.minimum == 1 && shape["sku"]?.required == true)
    }

    @Test("The schema encodes for GET /v1/config and decodes back to the same collections")
    func configDocument() throws {
        let schema = try Schema.builtIn()
        let document = schema.collectionsDocument()
        #expect(document["jobs"]?["fields"]?["status"]?["precedence"] == ["cancelled", "on_hold", "complete", "in_progress"])
        #expect(document["reports"]?["policy"] == "manual")
        let wrapped: JSONValue = ["version": 3, "collections": document]
        #expect(try Schema(jsonData: wrapped.canonicalData()).collections == schema.collections)
    }

    @Test("Values are checked against types, enums, bounds and shapes")
    func values() throws {
        let orders = try #require(try Schema.builtIn().collections["orders"])
        let lines = try #require(orders.fields["lines"])
        #expect(lines.problem(with: [["sku": "A", "qty": 2]], path: "lines", allowNull: false) == nil)
        #expect(lines.problem(with: [], path: "lines", allowNull: false)?.reason == "must have at least 1 items")
        #expect(lines.problem(with: [["sku": "A", "qty": 0]], path: "lines", allowNull: false)?.path == "lines[0].qty")
        #expect(lines.problem(with: [["sku": "A"]], path: "lines", allowNull: false)?.path == "lines[0].qty")
        #expect(lines.problem(with: [["sku": "A", "qty": 1, "x": 1]], path: "lines", allowNull: false)?.path == "lines[0].x")
        let due = try #require(try Schema.builtIn().collections["assignments"]?.fields["dueDate"])
        #expect(due.problem(with: "2026-11-30", path: "dueDate", allowNull: true) == nil)
        #expect(due.problem(with: "2026-11-30T10:00:00Z", path: "dueDate", allowNull: true) == nil)
        #expect(due.problem(with: "tomorrow", path: "dueDate", allowNull: true) != nil)
        // A day the calendar does not have is not a date, though it has the shape of one.
        for impossible in ["2026-02-30", "2026-1-01", "0000-01-01", "2026-11-31"] {
            #expect(due.problem(with: .string(impossible), path: "dueDate", allowNull: true) != nil, "\(impossible)")
        }
        #expect(due.problem(with: "2024-02-29", path: "dueDate", allowNull: true) == nil)
        #expect(due.problem(with: nil, path: "dueDate", allowNull: true) == nil)
        #expect(due.problem(with: nil, path: "dueDate", allowNull: false) != nil)
        let minutes = FieldSpec(type: .integer, minimum: 0)
        #expect(minutes.problem(with: 1.5, path: "m", allowNull: false) != nil)
        #expect(minutes.problem(with: 2.0, path: "m", allowNull: false) == nil)
        #expect(minutes.problem(with: "3", path: "m", allowNull: false) != nil)
    }

    @Test("An unknown field type fails naming the collection and field")
    func unknownType() {
        let failure = error { try schema(#""size": {"type": "bignum"}"#) }
        #expect(failure?.collection == "things" && failure?.field == "size")
        #expect(failure?.reason.contains("bignum") == true)
    }

    @Test("A nested unknown type names the nested field path")
    func nestedUnknownType() {
        let failure = error { try schema(#""lines": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "int"}}}}"#) }
        #expect(failure?.collection == "things" && failure?.field == "lines.qty")
    }

    @Test("A precedence value outside the enum fails naming the collection and field")
    func precedenceOutsideEnum() {
        let failure = error { try schema(#""status": {"type": "string", "enum": ["a", "b"], "precedence": ["a", "z"]}"#) }
        #expect(failure == SchemaError(collection: "things", field: "status", reason: "precedence value \"z\" is not in the field's enum"))
    }

    @Test("A transition to an unknown value fails naming the collection and field")
    func transitionToUnknown() {
        let failure = error { try schema(#""status": {"type": "string", "enum": ["a", "b"], "transitions": {"a": ["c"]}}"#) }
        #expect(failure == SchemaError(collection: "things", field: "status", reason: "transition to unknown value \"c\""))
    }

    @Test("Other invalid declarations fail naming what is wrong")
    func otherInvalid() {
        let cases: [(fields: String, collection: String, field: String?)] = [
            (#""n": {"type": "integer", "enum": ["1"]}"#, #""policy": "manual""#, "n"),
            (#""s": {"type": "string", "enum": ["a"], "default": "b"}"#, #""policy": "manual""#, "s"),
            (#""s": {"type": "string", "transitions": {"a": ["b"]}}"#, #""policy": "manual""#, "s"),
            (#""s": {"type": "string"}"#, #""lock": {"field": "nope", "values": ["x"]}"#, "nope"),
            (#""s": {"type": "string"}"#, #""policy": "sometimes""#, nil),
            (#""s": {"type": "string", "writeRoles": ["janitor"]}"#, #""policy": "manual""#, "s"),
            (#""s": {"type": "string"}"#, #""migrations": [{"from": 1, "to": 3, "actions": []}]"#, nil),
            (#""s": {"type": "string"}"#, #""migrations": [{"from": 1, "to": 2, "actions": [{"explode": {}}]}]"#, nil),
        ]
        for item in cases {
            let failure = error { try schema(item.fields, collection: item.collection) }
            #expect(failure?.collection == "things", "\(item.collection) \(item.fields)")
            #expect(failure?.field == item.field, "\(item.collection) \(item.fields)")
        }
        #expect(error { try Schema(jsonData: Data("{".utf8)) } != nil)
    }

    @Test("Rule 5: migrations rewrite old payloads step by step; no path means nil")
    func migrations() throws {
        let schema = try Schema.builtIn()
        let v1: [String: FieldChange] = [
            "status": FieldChange(old: "started", new: "paused"), "laborMinutes": FieldChange(new: 30),
            "legacyCode": FieldChange(new: "X"),
        ]
        let migrated = try #require(schema.migrate(v1, type: .update, collection: "jobs", from: 1))
        #expect(migrated == ["status": FieldChange(old: "in_progress", new: "on_hold"), "labor_minutes": FieldChange(new: 30)])
        #expect(
            schema.migrate(["laborMinutes": FieldChange(new: 5)], type: .update, collection: "jobs", from: 2) == [
                "labor_minutes": FieldChange(new: 5)
            ])
        #expect(
            schema.migrate(["laborMinutes": FieldChange(new: 5)], type: .update, collection: "jobs", from: 3) == ["laborMinutes": FieldChange(new: 5)]
        )
        let part = schema.migrate(["jobId": FieldChange(new: "j"), "sku": FieldChange(new: "s")], type: .create, collection: "part_usage", from: 1)
        #expect(part == ["job_id": FieldChange(new: "j"), "sku": FieldChange(new: "s"), "qty": FieldChange(new: 1)])
        #expect(schema.migrate([:], type: .update, collection: "jobs", from: 0) == nil)
        #expect(schema.migrate([:], type: .update, collection: "jobs", from: 4) == nil)
        let late = try self.schema(#""s": {"type": "string"}"#, collection: #""since": 2"#)
        #expect(late.migrate([:], type: .update, collection: "things", from: 1) == nil)
        #expect(late.migrate([:], type: .update, collection: "things", from: 2) == [:])
    }
}
