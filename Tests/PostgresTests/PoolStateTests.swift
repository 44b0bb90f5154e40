import Testing

@testable import Postgres

/// The pool's rules, without threads or a server (connections are integers).
@Suite("PoolState")
struct PoolStateTests {
    @Test("opens up to the limit, then queues callers")
    func opensThenQueues() {
        var state = PoolState<Int>(maxConnections: 2)
        guard case .open = state.acquire(), case .open = state.acquire(), case .wait = state.acquire() else {
            Issue.record("expected open, open, wait")
            return
        }
        #expect(state.count == 2)
    }

    @Test("reuses idle connections before opening new ones")
    func reusesIdle() {
        var state = PoolState<Int>(maxConnections: 2)
        _ = state.acquire()
        #expect(state.release(7, reusable: true).close == nil)
        guard case .use(7) = state.acquire() else {
            Issue.record("expected the idle connection")
            return
        }
        #expect(state.count == 1)
    }

    @Test("hands a returned connection to the longest waiter")
    func handsOffInOrder() {
        var state = PoolState<Int>(maxConnections: 1)
        _ = state.acquire()
        guard case .wait(let first) = state.acquire(), case .wait(let second) = state.acquire() else {
            Issue.record("expected two waiters")
            return
        }
        #expect(state.release(1, reusable: true).wake == first)
        guard case .connection(1)? = state.collect(first) else {
            Issue.record("the first waiter should get the connection")
            return
        }
        #expect(state.collect(second) == nil, "the second waiter times out empty-handed")
        #expect(state.release(1, reusable: true).wake == nil)
        #expect(state.idleCount == 1)
    }

    @Test("a broken connection is closed and its slot offered to a waiter")
    func brokenFreesSlot() {
        var state = PoolState<Int>(maxConnections: 1)
        _ = state.acquire()
        guard case .wait(let waiter) = state.acquire() else { return }
        let action = state.release(1, reusable: false)
        #expect(action.close == 1 && action.wake == waiter)
        guard case .open? = state.collect(waiter) else {
            Issue.record("the waiter should be allowed to open")
            return
        }
        #expect(state.count == 1)
    }

    @Test("a failed open frees its slot")
    func failedOpen() {
        var state = PoolState<Int>(maxConnections: 1)
        _ = state.acquire()
        #expect(state.openFailed() == nil)
        #expect(state.count == 0)
        guard case .open = state.acquire() else {
            Issue.record("the slot should be free")
            return
        }
    }

    @Test("shutdown closes idle connections, wakes waiters and refuses leases")
    func shutdown() {
        var state = PoolState<Int>(maxConnections: 2)
        _ = state.acquire()
        _ = state.acquire()
        _ = state.release(1, reusable: true)
        _ = state.acquire()  // takes 1 again
        guard case .wait(let waiter) = state.acquire() else { return }
        let (closing, woken) = state.shutdown()
        #expect(closing.isEmpty && woken == [waiter])
        guard case .closed? = state.collect(waiter), case .fail = state.acquire() else {
            Issue.record("expected closed and fail")
            return
        }
        #expect(state.release(1, reusable: true).close == 1)
    }
}
