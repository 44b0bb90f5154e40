public import Foundation

/// A response body produced over time, e.g. a Server-Sent Events feed.
///
/// The server pulls bytes with `read(maxBytes:)` on one of its network threads whenever
/// the client can take more. When nothing is ready the stream answers `.wait`; the
/// connection then sleeps (costing no thread) until the stream calls the wake handler.
///
/// ```swift
/// final class Feed: ResponseStream { … }
/// router.add(.GET, "/v1/events") { _ in
///     Response(headers: ["Content-Type": "text/event-stream"], body: .stream(Feed()))
/// }
/// ```
public protocol ResponseStream: AnyObject, Sendable {
    /// Called on a network thread; must not block. Return at most `maxBytes` bytes to
    /// send, `.wait` when nothing is ready now, or `.end`. Empty data counts as `.wait`.
    func read(maxBytes: Int) -> StreamChunk
    /// The server installs a closure the stream calls, from any thread, when data is ready.
    func setWakeHandler(_ wake: @escaping @Sendable () -> Void)
    /// The connection ended: the client went away, the stream ended, or the server is stopping.
    func close()
}

/// One answer of `ResponseStream.read(maxBytes:)`.
public enum StreamChunk: Sendable {
    case data(Data)
    case wait
    case end
}
