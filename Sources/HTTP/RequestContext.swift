internal import CMicroHTTPD
internal import Foundation
import Support
internal import Synchronization

/// What is known of a request once its headers are in.
struct RequestHead {
    let method: HTTPMethod
    let headers: HTTPHeaders
    let query: [String: String]
    let remoteAddress: String
    let resolution: Resolution
    let bodyLimit: Int
}

/// Spool bytes reserved for one request body, and for whom (see `SpoolBudget`).
struct SpoolReservation {
    let bytes: Int
    let owner: String
}

/// One request's state, from its first access-handler call until MHD's completion notice.
///
/// The receiving fields are touched only by the network thread that owns the connection
/// until `dispatch()` hands the finished `Request` to the worker pool, whose lock orders
/// the handoff. From then on the network thread and the worker meet only through `phase`.
final class RequestContext: PoolJob, @unchecked Sendable {
    private enum Phase {
        case receiving, queued, running
        /// The handler's answer; nil when it could not be turned into an MHD response.
        case ready(MHDResponse?)
        case abandoned, responded
    }

    /// What the network thread should do when MHD calls again with the request complete.
    enum Outcome {
        case dispatch, inFlight, abandoned
        case respond(MHDResponse?)
    }

    let core: ServerCore
    let connection: OpaquePointer
    let methodName: String
    let path: String
    let startedAt = ContinuousClock.now

    var head: RequestHead?
    /// The spool bytes this request's body holds, given back when the request is over.
    var spoolReservation: SpoolReservation?
    /// Refused to keep connections for other paths; the connection closes after the answer.
    var isShed = false
    var body = Data()
    var bodyFile: TemporaryFile?
    /// Body bytes seen so far, including bytes dropped after a rejection.
    private var received = 0
    /// Set when the body must not reach the handler; answered once the body is over.
    private(set) var rejection: HTTPFailure?
    private var request: Request?
    private let phase = Mutex(Phase.receiving)

    init(core: ServerCore, connection: OpaquePointer, methodName: String, path: String) {
        self.core = core
        self.connection = connection
        self.methodName = methodName
        self.path = path
    }

    /// Takes one piece of the body; false when the connection should be closed (a
    /// rejected body kept coming past the drain allowance).
    func receive(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        received += count
        guard let head, rejection == nil else {
            return received - (head?.bodyLimit ?? 0) <= core.configuration.overflowDrainBytes
        }
        if received > head.bodyLimit {
            reject(.payloadTooLarge(limit: head.bodyLimit))
        } else if let bodyFile {
            do {
                try bodyFile.write(bytes, count: count)
            } catch {
                core.logger.error("cannot write request body", metadata: ["http.path": path, "error": "\(error)"])
                reject(.internalError)
            }
        } else {
            body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        }
        return true
    }

    /// Drops the body received so far and answers `error` once the body is over.
    private func reject(_ error: HTTPFailure) {
        rejection = error
        body = Data()
        bodyFile?.remove()
        bodyFile = nil
    }

    /// Reads and advances the phase when MHD calls with the request complete.
    func nextStep() -> Outcome {
        phase.withLock { phase in
            switch phase {
            case .receiving: return .dispatch
            case .queued, .running, .responded: return .inFlight
            case .abandoned:
                phase = .responded
                return .abandoned
            case .ready(let response):
                phase = .responded
                return .respond(response)
            }
        }
    }

    /// Suspends the connection and hands the handler to the worker pool. When the pool
    /// is full or closed, `refusal` becomes the answer instead.
    func dispatch(_ request: Request, refusal: @autoclosure () -> MHDResponse?) {
        self.request = request
        bodyFile?.finishWriting()
        phase.withLock { $0 = .queued }
        // Suspending before submitting: the worker can only resume (in `run`) a connection
        // already suspended, which MHD requires. No lock is held while the worker starts.
        MHD_suspend_connection(connection)
        guard !core.pool.submit(self) else { return }
        phase.withLock { $0 = .ready(refusal()) }
        // MHD calls the access handler again once resumed, and it queues the refusal.
        MHD_resume_connection(connection)
    }

    /// Runs the handler on a worker thread, then resumes the connection so MHD calls the
    /// access handler again and queues the answer.
    func run() {
        let proceed = phase.withLock { phase in
            guard case .queued = phase else { return false }
            phase = .running
            return true
        }
        guard proceed, let request, let head else { return }
        let prepared = core.respond(to: request, resolution: head.resolution, connection: connection)
        bodyFile?.remove()
        phase.withLock { phase in
            // Abandoned meanwhile: the answer is dropped and the connection already resumed.
            guard case .running = phase else { return }
            phase = .ready(prepared)
            MHD_resume_connection(connection)
        }
    }

    func abandon() {
        phase.withLock { phase in
            switch phase {
            case .queued, .running:
                phase = .abandoned
                MHD_resume_connection(connection)
            case .receiving, .ready, .abandoned, .responded:
                break
            }
        }
    }

    /// MHD is done with the request (answered, or the client went away).
    func finish() {
        bodyFile?.remove()
        if let spoolReservation { core.spool.release(spoolReservation.bytes, for: spoolReservation.owner) }
        spoolReservation = nil
    }
}
