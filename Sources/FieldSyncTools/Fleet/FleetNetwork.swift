import FieldSyncClient
import Foundation
import Synchronization

/// The network every simulated device goes through: a switch that takes the whole fleet
/// offline (requests fail as without a signal) and counters of what crossed it. Requests go
/// out over one of `bases`, always the same for a device (by its `X-Device-Id`), so that a
/// large fleet is not squeezed through one client's few connections.
final class FleetNetwork: HTTPTransport {
    private let bases: [any HTTPTransport]
    private let online = Atomic(true)
    private let counters = Mutex(Counters())

    /// What the devices sent and received, and how photo chunks went.
    struct Counters: Sendable {
        var requests = 0
        /// Requests that got no answer (no network, a cut connection).
        var failedRequests = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        /// Chunks sent again although the server had acknowledged them.
        var chunksResent = 0
        /// Photos whose first chunk was sent again after the server had acknowledged it.
        var photosRestarted = 0
        /// Acknowledged chunk indexes per attachment.
        fileprivate var acknowledged: [String: Set<Int>] = [:]
    }

    init(bases: [any HTTPTransport]) {
        precondition(!bases.isEmpty, "a network needs a transport")
        self.bases = bases
    }

    var isOnline: Bool {
        get { online.load(ordering: .relaxed) }
        set { online.store(newValue, ordering: .relaxed) }
    }

    var totals: Counters { counters.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let chunk = Self.chunk(of: request)
        do {
            guard isOnline else { throw URLError(.notConnectedToInternet) }
            if let chunk { noteSending(chunk) }
            let device = request.headers["X-Device-Id"] ?? ""
            let response = try await bases[Int(UInt(bitPattern: device.hashValue) % UInt(bases.count))].send(request)
            counters.withLock { totals in
                totals.requests += 1
                totals.bytesSent += Int64(request.body?.count ?? 0)
                totals.bytesReceived += Int64(response.body.count)
                if let chunk, (200..<300).contains(response.status) { totals.acknowledged[chunk.attId, default: []].insert(chunk.index) }
            }
            return response
        } catch {
            counters.withLock { $0.failedRequests += 1 }
            throw error
        }
    }

    private func noteSending(_ chunk: (attId: String, index: Int)) {
        counters.withLock { totals in
            guard totals.acknowledged[chunk.attId]?.contains(chunk.index) == true else { return }
            totals.chunksResent += 1
            if chunk.index == 0 { totals.photosRestarted += 1 }
        }
    }

    /// `PUT …/v1/attachments/<attId>/chunks/<index>`: the attachment and chunk index.
    private static func chunk(of request: HTTPRequest) -> (attId: String, index: Int)? {
        guard request.method == "PUT" else { return nil }
        let parts = request.url.path.split(separator: "/")
        guard parts.count >= 5, parts[parts.count - 2] == "chunks", let index = Int(parts[parts.count - 1]) else { return nil }
        return (String(parts[parts.count - 3]), index)
    }
}
