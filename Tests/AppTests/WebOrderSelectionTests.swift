import App
import Foundation
import Postgres
import SyncEngine
import SyncProtocol
import Testing

@Suite("Confirming a selection of orders, over HTTP")
struct WebOrderSelectionTests {
    /// Dispatchers `dee` and `maria`, supervisor `sue`, and orders ORD-1…ORD-`count` that ana's
    /// phone submitted for customers cust-1…
    static func seed(_ server: WebTestServer, count: Int) throws -> WebDevice {
        try server.createUser("dee", role: .dispatcher)
        try server.createUser("maria", role: .dispatcher)
        try server.createUser("sue", role: .supervisor, team: "north")
        try server.createUser("ana", role: .field, team: "north")
        let device = try WebDevice(server, username: "ana", deviceId: "ana-phone")
        for index in 1...count {
            let body = try JSONEncoder().encode(
                OrderRequest(orderId: "ORD-\(index)", customerId: "cust-\(index)", lines: [OrderLine(sku: "A-1", qty: 1)]))
            let created = try device.post("/v1/orders", json: body, headers: [("Idempotency-Key", "k-ORD-\(index)")])
            try #require(created.status == 201, "order answered \(created.status): \(created.body)")
        }
        return device
    }

    static func statuses(_ server: WebTestServer) throws -> [String: String] {
        try server.database.withConnection { connection in
            let rows = try connection.query("SELECT record_id, payload->>'status' FROM records WHERE collection = 'orders'")
            return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(0, as: String.self), try $0.decode(1, as: String.self)) })
        }
    }

    static func selection(_ ids: [String]) -> [(String, String)] {
        ids.map { ("order", $0) }
    }

    @Test("the queue offers one-click confirm per row and a checkbox per order for the selection form")
    func queueForms() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server, count: 2)
        let browser = try server.signedIn(as: "dee")
        let page = try browser.get("/admin/orders")
        #expect(page.body.contains(#"form="confirm-selected" formaction="/admin/orders/ORD-1/confirm" name="from" value="queue""#))
        #expect(page.body.contains(#"<form method="post" action="/admin/orders" id="confirm-selected""#))
        #expect(page.body.contains(#"form="confirm-selected" name="order" value="ORD-2" aria-label="Select order ORD-2">"#))
        let all = try browser.get("/admin/orders?select=all")
        #expect(all.body.contains(#"value="ORD-1" aria-label="Select order ORD-1" checked>"#) && all.body.contains("Clear selection"))
        let decided = try browser.get("/admin/orders?status=CONFIRMED")
        #expect(!decided.body.contains("confirm-selected"))
    }

    @Test("confirming the selection asks once, listing the orders, then confirms them in one transaction and names the one decided meanwhile")
    func confirmSelection() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        let device = try Self.seed(server, count: 5)
        let ids = (1...5).map { "ORD-\($0)" }
        let browser = try server.signedIn(as: "dee")
        let asked = try browser.submit("/admin/orders", from: "/admin/orders", Self.selection(ids))
        #expect(asked.status == 200 && asked.body.contains("Confirm 5 orders?"), "\(asked.status): \(asked.body)")
        for index in 1...5 {
            #expect(asked.body.contains(#"<span class="mono strong">ORD-\#(index)</span> <span class="muted">customer cust-\#(index)</span>"#))
            #expect(asked.body.contains(#"<input type="hidden" name="order" value="ORD-\#(index)">"#))
        }
        #expect(try Self.statuses(server).values.allSatisfy { $0 == "SUBMITTED" })

        // Between the page and the decision, another dispatcher rejects ORD-3 through the device API.
        let maria = try WebDevice(server, username: "maria", deviceId: "maria-tablet")
        let rejected = try maria.post("/v1/orders/ORD-3/reject", json: Data(#"{"reason":"Duplicate"}"#.utf8))
        try #require(rejected.status == 200, "reject: \(rejected.body)")

        let done = try browser.submit("/admin/orders", from: "/admin/orders", Self.selection(ids) + [("confirmed", "yes")])
        #expect(done.status == 200, "\(done.body)")
        #expect(done.body.contains("4 orders confirmed"))
        #expect(done.body.contains("4 confirmed; ORD-3 was already rejected by maria."))
        #expect(
            try Self.statuses(server) == [
                "ORD-1": "CONFIRMED", "ORD-2": "CONFIRMED", "ORD-3": "REJECTED", "ORD-4": "CONFIRMED", "ORD-5": "CONFIRMED",
            ])

        // Each confirmation is a change of its own, made by dee, announced as a single one is;
        // all four were written by one transaction.
        #expect(
            try server.integer(
                """
                SELECT count(*)::int FROM records JOIN users u ON field_meta::jsonb->'status'->>'deviceId' = 'web:' || u.id
                WHERE u.username = 'dee' AND payload->>'status' = 'CONFIRMED'
                """) == 4)
        #expect(
            try server.integer("SELECT count(DISTINCT field_meta::jsonb->'status'->>'opId')::int FROM records WHERE payload->>'status' = 'CONFIRMED'")
                == 4)
        #expect(try server.integer("SELECT count(DISTINCT xid)::int FROM records WHERE payload->>'status' = 'CONFIRMED'") == 1)
        #expect(try server.integer("SELECT count(*)::int FROM events WHERE type = 'order.status_changed'") == 5)
        let pull = try device.get("/v1/sync/pull?limit=500")
        #expect(pull.body.components(separatedBy: "CONFIRMED").count - 1 == 4, "pull: \(pull.body)")

        // The order page says who decided.
        let order = try browser.get("/admin/orders/ORD-3")
        #expect(order.body.contains("<dt>Decided by</dt><dd>maria</dd>"))
        // Posting the same selection again changes nothing and names every order.
        let again = try browser.submit("/admin/orders", from: "/admin/orders", Self.selection(ids) + [("confirmed", "yes")])
        #expect(again.status == 200 && again.body.contains("0 confirmed; ORD-1 was already confirmed by dee"))
    }

    @Test("an empty, oversized, malformed or repeated selection is refused with its reason and changes nothing")
    func refusedSelections() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server, count: 2)
        let browser = try server.signedIn(as: "dee")
        let cases: [(fields: [(String, String)], status: Int, text: String)] = [
            ([], 422, "No order was selected"),
            (Self.selection((0...OrderSelection.limit).map { "ORD-\($0)" }), 413, "201 orders were selected; at most 200"),
            (Self.selection(["ORD-1", "ORD 2<b>"]), 422, "These are not order ids, so nothing was changed: ORD 2&lt;b&gt;."),
            (Self.selection(["ORD-1", String(repeating: "x", count: 129)]), 422, "These are not order ids"),
            (Self.selection(["ORD-1", "ORD-2", "ORD-1"]), 422, "selected more than once, so nothing was changed: ORD-1."),
            (Self.selection(["ORD-1", "ORD-404"]), 404, "There is no order ORD-404, so nothing was changed"),
        ]
        for confirmed in [false, true] {
            for refused in cases {
                let fields = refused.fields + (confirmed ? [("confirmed", "yes")] : [])
                let answer = try browser.submit("/admin/orders", from: "/admin/orders", fields)
                #expect(answer.status == refused.status && answer.body.contains(refused.text), "\(refused.text): \(answer.status) \(answer.body)")
            }
        }
        #expect(try Self.statuses(server) == ["ORD-1": "SUBMITTED", "ORD-2": "SUBMITTED"])
        #expect(try server.integer("SELECT count(*)::int FROM events WHERE type = 'order.status_changed'") == 0)
    }

    @Test("a selection without the CSRF token, from a supervisor or signed out changes nothing")
    func refusedSenders() throws {
        let server = try WebTestServer()
        defer { server.stop() }
        _ = try Self.seed(server, count: 2)
        let fields = Self.selection(["ORD-1", "ORD-2"]) + [("confirmed", "yes")]
        let forged = try server.signedIn(as: "dee").post("/admin/orders", fields)
        #expect(forged.status == 403 && forged.body.contains("did not come from this back-office"))
        let wrongToken = try server.signedIn(as: "dee").post("/admin/orders", fields + [("_csrf", "AAAA")])
        #expect(wrongToken.status == 403)
        let supervisor = try server.signedIn(as: "sue")
        #expect(try supervisor.post("/admin/orders", fields).status == 403)
        let visitor = Browser(port: server.app.port)
        #expect(try visitor.post("/admin/orders", fields).status == 303)
        #expect(try Self.statuses(server) == ["ORD-1": "SUBMITTED", "ORD-2": "SUBMITTED"])
    }
}
