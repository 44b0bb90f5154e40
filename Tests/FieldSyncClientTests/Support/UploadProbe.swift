import FieldSyncClient
import Foundation
import Synchronization

/// URLSession that watches photo uploads go by: which are open at once (registration sent,
/// finalize not yet answered), and, when asked, holds the first chunk back until the server
/// shows something (or a deadline passes, so a client that never gets there fails instead
/// of hanging).
final class UploadProbe: HTTPTransport {
    private struct State {
        var open: Set<String> = []
        var mostOpen = 0
        var firstChunkHeld = false
        var condition: (@Sendable () throws -> Bool)?
        var conditionMet: Bool?
    }

    private let base = URLSessionTransport(timeout: 30)
    private let state = Mutex(State())

    /// The most uploads open at the same moment.
    var mostOpen: Int { state.withLock { $0.mostOpen } }

    /// Whether the held chunk went out because `condition` held; nil when none was held.
    var conditionMet: Bool? { state.withLock { $0.conditionMet } }

    /// Holds the first chunk sent until `condition` (checked on the server) is true.
    func holdFirstChunk(until condition: @escaping @Sendable () throws -> Bool) {
        state.withLock { $0.condition = condition }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        if request.method == "POST", path.hasSuffix("/v1/attachments"), let attId = Self.attId(registering: request) {
            state.withLock { state in
                state.open.insert(attId)
                state.mostOpen = max(state.mostOpen, state.open.count)
            }
        }
        if request.method == "PUT", path.contains("/chunks/"), let condition = takeHold() {
            let met = try await poll(condition)
            state.withLock { $0.conditionMet = met }
        }
        let response = try await base.send(request)
        if path.hasSuffix("/finalize"), (200..<300).contains(response.status) {
            let attId = path.split(separator: "/").dropLast().last.map(String.init) ?? ""
            _ = state.withLock { $0.open.remove(attId) }
        }
        return response
    }

    private func takeHold() -> (@Sendable () throws -> Bool)? {
        state.withLock { state in
            guard !state.firstChunkHeld, let condition = state.condition else { return nil }
            state.firstChunkHeld = true
            return condition
        }
    }

    /// Polls `condition` until it holds or 30 s pass (then once more).
    private func poll(_ condition: @Sendable () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }

    private static func attId(registering request: HTTPRequest) -> String? {
        guard let body = request.body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return object["attId"] as? String
    }
}
