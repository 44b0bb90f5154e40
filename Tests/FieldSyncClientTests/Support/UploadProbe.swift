import FieldSyncClient
import Foundation
import Synchronization

/// URLSession that watches photo uploads go by: how many chunks are on the way at once,
/// and, when asked, holds the first chunk back until the server shows something (or a
/// deadline passes, so a client that never gets there fails instead of hanging).
final class UploadProbe: HTTPTransport {
    private struct State {
        var chunksOut = 0
        var mostChunksOut = 0
        var firstChunkHeld = false
        var condition: (@Sendable () throws -> Bool)?
        var conditionMet: Bool?
    }

    private let base = URLSessionTransport(timeout: 30)
    private let state = Mutex(State())

    /// The most chunk requests on the way at the same moment (held ones included).
    var mostChunksOut: Int { state.withLock { $0.mostChunksOut } }

    /// Whether the held chunk went out because `condition` held; nil when none was held.
    var conditionMet: Bool? { state.withLock { $0.conditionMet } }

    /// Holds the first chunk sent until `condition` (checked on the server) is true.
    func holdFirstChunk(until condition: @escaping @Sendable () throws -> Bool) {
        state.withLock { $0.condition = condition }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.method == "PUT", request.url.path.contains("/chunks/") else { return try await base.send(request) }
        state.withLock { state in
            state.chunksOut += 1
            state.mostChunksOut = max(state.mostChunksOut, state.chunksOut)
        }
        defer { state.withLock { $0.chunksOut -= 1 } }
        if let condition = takeHold() {
            let met = try await poll(condition)
            state.withLock { $0.conditionMet = met }
        }
        return try await base.send(request)
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
}
