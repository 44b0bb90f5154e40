import AppTesting
import Foundation
import Postgres
import Support
import SyncEngine
import SyncProtocol
import Testing

/// `POST /v1/orders` with Idempotency-Key semantics, and the office's decisions (PROTOCOL.md, Orders).
@Suite("Orders API", .serialized)
struct OrdersTests {
    @Test("An order is created SUBMITTED with 201; the same key and body answer the same bytes, marked replayed")
    func createAndReplay() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()

        let first = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        let again = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        let reordered = Data(#"{"note":"by noon","lines":[{"qty":2,"sku":"A-1"}],"customerId":"cust-9","orderId":"ord-1"}"#.utf8)
        let sameContent = try await server.postOrder(reordered, key: "k-1", token: token)

        #expect(first.status == 201)
        #expect(first.header("Idempotent-Replayed") == nil)
        let order = try first.decode(Order.self)
        #expect(order.orderId == "ord-1" && order.customerId == "cust-9" && order.lines == [OrderLine(sku: "A-1", qty: 2)])
        #expect(order.note == "by noon" && order.status == .submitted && order.serverSeq > 0)
        #expect(RFC3339.date(from: order.createdAt) != nil)
        for replay in [again, sameContent] {
            #expect(replay.status == 201)
            #expect(replay.body == first.body, "the original response, byte for byte")
            #expect(replay.header("Idempotent-Replayed") == "true")
        }
    }

    @Test("The same key with another body is 422 IDEMPOTENCY_KEY_REUSED; keys belong to their user; a new key is a new request")
    func keyReused() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, ana) = try await server.makeDevice()
        let (_, ben) = try await server.makeDevice()
        #expect(try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: ana).status == 201)

        let reused = try await server.postOrder(TestServer.orderBody("ord-1", qty: 3), key: "k-1", token: ana)
        let otherUser = try await server.postOrder(TestServer.orderBody("ord-2"), key: "k-1", token: ben)
        let newKeySameOrder = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-2", token: ana)

        #expect(reused.status == 422)
        #expect(reused.errorCode == "IDEMPOTENCY_KEY_REUSED")
        #expect(otherUser.status == 201, "ben's k-1 is not ana's")
        #expect(otherUser.header("Idempotent-Replayed") == nil)
        #expect(try otherUser.decode(Order.self).orderId == "ord-2")
        #expect(newKeySameOrder.status == 409 && newKeySameOrder.errorCode == "RECORD_EXISTS", "a new key is a new request")
    }

    @Test("Without an Idempotency-Key the answer is 400 IDEMPOTENCY_KEY_REQUIRED and nothing is created")
    func keyRequired() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()

        for key in [nil, "", "  "] as [String?] {
            let response = try await server.postOrder(TestServer.orderBody("ord-1"), key: key, token: token)
            #expect(response.status == 400)
            #expect(response.errorCode == "IDEMPOTENCY_KEY_REQUIRED")
        }
        let malformed = try await server.postOrder(TestServer.orderBody("ord-1"), key: String(repeating: "k", count: 256), token: token)
        #expect(malformed.errorCode == "VALIDATION_FAILED")
        #expect(try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-ok", token: token).status == 201, "ord-1 was free")
    }

    @Test("Orders pass the sync gate: 503 MAINTENANCE with Retry-After, 426 below the hard minimum, and nothing is written")
    func gated() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()
        let (_, dispatcher) = try await server.makeDevice(role: .dispatcher, team: nil)
        _ = try await server.createOrder("ord-open", token: token)

        try server.updateSettings { $0.maintenanceMode = true }
        let submitted = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        let confirmed = try await server.decideOrder("ord-open", token: dispatcher)
        try server.updateSettings {
            $0.maintenanceMode = false
            $0.hardMinimumAppVersion = "9.0.0"
        }
        let outdated = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)

        #expect(submitted.status == 503 && submitted.errorCode == "MAINTENANCE" && submitted.header("Retry-After") != nil)
        #expect(confirmed.status == 503 && confirmed.errorCode == "MAINTENANCE")
        #expect(outdated.status == 426 && outdated.errorCode == "UPGRADE_REQUIRED")
        #expect(try server.scalar("SELECT count(*) FROM records WHERE collection = 'orders'") == 1)
        #expect(try server.scalar("SELECT count(*) FROM records WHERE payload->>'status' = 'CONFIRMED'") == 0)
    }

    @Test("Invalid bodies are 400 VALIDATION_FAILED naming the field; the key stays unused")
    func validation() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()
        let cases = [
            (#"{"customerId": "c", "lines": [{"sku": "A", "qty": 1}]}"#, "orderId"),
            (#"{"orderId": "bad id!", "customerId": "c", "lines": [{"sku": "A", "qty": 1}]}"#, "orderId"),
            (#"{"orderId": "o-1", "lines": [{"sku": "A", "qty": 1}]}"#, "customerId"),
            (#"{"orderId": "o-1", "customerId": " ", "lines": [{"sku": "A", "qty": 1}]}"#, "customerId"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": []}"#, "lines"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 0}]}"#, "lines[1].qty"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "A", "qty": "two"}]}"#, "lines[0].qty"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "", "qty": 1}]}"#, "lines[0].sku"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "A", "qty": 1}], "status": "CONFIRMED"}"#, "status"),
        ]

        for (body, field) in cases {
            let response = try await server.postOrder(Data(body.utf8), key: "k-1", token: token)
            #expect(response.status == 400, "\(body)")
            #expect(response.errorCode == "VALIDATION_FAILED", "\(body)")
            #expect(try response.errorEnvelope().error.details?["field"] == .string(field), "\(body)")
        }
        #expect(try await server.postOrder(TestServer.orderBody("o-1"), key: "k-1", token: token).status == 201)
    }

    @Test("U+0000, which the database cannot store, in an order or a rejection reason is 400 VALIDATION_FAILED naming the field")
    func unstorableText() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let (_, token) = try await server.makeDevice()
        let (_, adam) = try await server.makeDevice(role: .admin, team: nil)
        let cases = [
            (#"{"orderId": "o-1", "customerId": "c\u0000", "lines": [{"sku": "A", "qty": 1}]}"#, "customerId"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "A", "qty": 1}, {"sku": "\u0000", "qty": 1}]}"#, "lines[1].sku"),
            (#"{"orderId": "o-1", "customerId": "c", "lines": [{"sku": "A", "qty": 1}], "note": "by\u0000noon"}"#, "note"),
        ]

        for (body, field) in cases {
            let response = try await server.postOrder(Data(body.utf8), key: "k-1", token: token)
            #expect(response.status == 400, "\(body)")
            #expect(response.errorCode == "VALIDATION_FAILED", "\(body)")
            #expect(try response.errorEnvelope().error.details?["field"] == .string(field), "\(body)")
        }
        _ = try await server.createOrder("o-2", token: token)
        let reject = try await server.decideOrder("o-2", reject: "out\u{0}of stock", token: adam)
        #expect(reject.status == 400)
        #expect(try reject.errorEnvelope().error.details?["field"] == .string("reason"))
        #expect(try await server.decideOrder("o-2", token: adam).status == 200)
    }

    @Test("A second request with a key whose first is still in flight gets 409 REQUEST_IN_PROGRESS; the first then commits")
    func concurrentSameKey() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()
        // Holding the order's record lock keeps the first request in flight: it claims the key,
        // then waits to lock the record.
        let blocker = try RecordLock(server.database, collection: "orders", recordId: "ord-1")
        async let firstResponse = server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        try await blocker.waitForAWaiter()

        let second = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        try blocker.release()
        let first = try await firstResponse
        let third = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)

        #expect(second.status == 409)
        #expect(second.errorCode == "REQUEST_IN_PROGRESS")
        #expect(second.header("Retry-After") == "1")
        #expect(first.status == 201)
        #expect(third.status == 201 && third.body == first.body && third.header("Idempotent-Replayed") == "true")
    }

    @Test("A request that dies in flight leaves nothing behind: its key is free for the retry")
    func crashedRequestReleasesKey() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, token) = try await server.makeDevice()
        let blocker = try RecordLock(server.database, collection: "orders", recordId: "ord-1")
        async let doomed = server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)
        try await blocker.waitForAWaiter()

        try blocker.terminateWaiters()
        #expect(try await doomed.status == 500)
        try blocker.release()
        let retry = try await server.postOrder(TestServer.orderBody("ord-1"), key: "k-1", token: token)

        #expect(retry.status == 201)
        #expect(retry.header("Idempotent-Replayed") == nil, "the first attempt committed nothing")
    }

    @Test("A dispatcher confirms with 200; a field user or supervisor gets 403; twice is 409 ORDER_NOT_SUBMITTED; unknown is 404")
    func confirm() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, ana) = try await server.makeDevice()
        let (_, sue) = try await server.makeDevice(role: .supervisor)
        let (_, dora) = try await server.makeDevice(role: .dispatcher, team: nil)
        let created = try await server.createOrder("ord-1", token: ana)

        let byField = try await server.decideOrder("ord-1", token: ana)
        let bySupervisor = try await server.decideOrder("ord-1", token: sue)
        let confirmed = try await server.decideOrder("ord-1", token: dora)
        let twice = try await server.decideOrder("ord-1", token: dora)
        let rejectAfter = try await server.decideOrder("ord-1", reject: "too late", token: dora)
        let unknown = try await server.decideOrder("ord-404", token: dora)

        #expect(byField.status == 403 && byField.errorCode == "FORBIDDEN")
        #expect(bySupervisor.status == 403 && bySupervisor.errorCode == "FORBIDDEN")
        #expect(confirmed.status == 200)
        let order = try confirmed.decode(Order.self)
        #expect(order.status == .confirmed && order.serverSeq > created.serverSeq && order.createdAt == created.createdAt)
        #expect(order.lines == created.lines && order.rejectionReason == nil)
        #expect(twice.status == 409 && twice.errorCode == "ORDER_NOT_SUBMITTED")
        #expect(rejectAfter.status == 409 && rejectAfter.errorCode == "ORDER_NOT_SUBMITTED")
        #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND")
    }

    @Test("An admin rejects with a reason, which the order carries; a reason is required")
    func reject() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let (_, ana) = try await server.makeDevice()
        let (_, adam) = try await server.makeDevice(role: .admin, team: nil)
        _ = try await server.createOrder("ord-1", token: ana)

        let blank = try await server.decideOrder("ord-1", reject: " ", token: adam)
        let missing = try await server.client.send("POST", "/v1/orders/ord-1/reject", body: Data("{}".utf8), token: adam)
        let rejected = try await server.decideOrder("ord-1", reject: "out of stock", token: adam)

        for refused in [blank, missing] {
            #expect(refused.status == 400)
            #expect(try refused.errorEnvelope().error.details?["field"] == .string("reason"))
        }
        #expect(rejected.status == 200)
        let order = try rejected.decode(Order.self)
        #expect(order.status == .rejected && order.rejectionReason == "out of stock")
    }

    @Test("The confirmation reaches the orderer's next pull as a change with a new serverSeq")
    func confirmationReachesPull() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let ana = try await server.device()
        let (_, dora) = try await server.makeDevice(role: .dispatcher, team: nil)
        let created = try await server.createOrder("ord-1", token: ana.token)
        let initial = try await ana.pull()
        #expect(initial.changes.contains { $0.recordId == "ord-1" && $0.payload?["status"] == "SUBMITTED" && $0.serverSeq == created.serverSeq })

        let confirmed = try await server.decideOrder("ord-1", token: dora).decode(Order.self)
        let next = try await ana.pull(cursor: initial.nextCursor)

        let change = try #require(next.changes.first { $0.collection == "orders" && $0.recordId == "ord-1" })
        #expect(change.type == .upsert && change.serverSeq == confirmed.serverSeq && change.serverSeq > created.serverSeq)
        #expect(change.payload?["status"] == "CONFIRMED")
    }
}

/// Holds a record's lock (the advisory lock a writer takes on its key) in an open transaction,
/// so that writers of the record wait.
private final class RecordLock: @unchecked Sendable {
    /// Used by one test; its queries are short, so they run on the test's own task.
    private let connection: PostgresConnection

    init(_ database: PostgresConfiguration, collection: String, recordId: String) throws {
        connection = try PostgresConnection(configuration: database, logger: Logger(label: "test", level: .warning))
        try connection.executeScript("BEGIN")
        try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(\(collection) || '/' || \(recordId), 0))")
    }

    /// Returns once another session of the database waits for a lock.
    func waitForAWaiter() async throws {
        let waiting = try await eventually(within: .seconds(60), every: .milliseconds(10)) { () -> Bool? in
            let waiters = try connection.query(
                """
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """)[0].decode(0, as: Int.self)
            return waiters > 0 ? true : nil
        }
        guard waiting != nil else { throw TestServerError("no request started waiting for the record") }
    }

    /// Ends the sessions waiting for a lock, as a crash of their server would.
    func terminateWaiters() throws {
        try connection.query(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            """)
    }

    func release() throws {
        try connection.executeScript("COMMIT")
        connection.close()
    }
}
