internal import CMicroHTTPD
internal import Foundation
internal import Synchronization

/// Connects a `ResponseStream` to libmicrohttpd's content reader for one connection.
///
/// When the stream has nothing to send, the reader suspends the connection (allowed from
/// the content reader; it costs no thread) and the stream's wake handler resumes it.
/// A wake can race the suspend: the reader suspends while holding `flags`' lock, and a
/// wake either finds the connection suspended (and resumes it) or leaves `wakePending`
/// for the reader to see before it suspends. MHD requires that `MHD_resume_connection`
/// only follow `MHD_suspend_connection`, and the lock guarantees it.
///
/// `connection` stays valid while suspended (MHD cannot close a suspended connection
/// before the daemon stops, and the server resumes every stream before stopping).
final class StreamState: @unchecked Sendable {
    private struct Flags {
        var suspended = false
        var wakePending = false
        var ending = false
        /// Bytes the stream returned beyond the reader's buffer.
        var leftover = Data()
    }

    let stream: any ResponseStream
    private let connection: OpaquePointer
    private let registry: StreamRegistry
    private let flags = Mutex(Flags())

    init(stream: any ResponseStream, connection: OpaquePointer, registry: StreamRegistry) {
        self.stream = stream
        self.connection = connection
        self.registry = registry
    }

    /// A chunked MHD response reading from the stream; nil when MHD cannot allocate one.
    func makeResponse() -> OpaquePointer? {
        stream.setWakeHandler { [weak self] in self?.wake(ending: false) }
        if !registry.register(self) { wake(ending: true) }
        let context = Unmanaged.passRetained(self).toOpaque()
        // MHD_SIZE_UNKNOWN (UInt64.max): no Content-Length, so HTTP/1.1 clients get chunks.
        let handle = MHD_create_response_from_callback(UInt64.max, 16 * 1024, Self.contentReader, context, Self.releaseReader)
        if handle == nil { Unmanaged<StreamState>.fromOpaque(context).takeRetainedValue().finish() }
        return handle
    }

    private static let contentReader: MHD_ContentReaderCallback = { context, _, buffer, capacity in
        Unmanaged<StreamState>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, capacity: capacity)
    }

    /// > MHD_ContentReaderFreeCallback: called by libmicrohttpd if we are done with a content
    /// > reader. Balances the `passRetained` of `makeResponse()`.
    private static let releaseReader: MHD_ContentReaderFreeCallback = { context in
        Unmanaged<StreamState>.fromOpaque(context!).takeRetainedValue().finish()
    }

    /// Wakes a waiting stream; with `ending`, the next read ends it (server shutdown).
    func wake(ending: Bool) {
        let resume = flags.withLock { flags in
            if ending { flags.ending = true }
            guard flags.suspended else {
                flags.wakePending = true
                return false
            }
            flags.suspended = false
            return true
        }
        if resume { MHD_resume_connection(connection) }
    }

    /// MHD's content reader: copies bytes, ends the stream, or suspends until woken.
    private func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        while true {
            let leftover = flags.withLock { flags -> Data? in
                if flags.ending { return nil }
                defer { flags.leftover = Data() }
                return flags.leftover
            }
            guard let leftover else { return Self.endOfStream }
            if !leftover.isEmpty { return copy(leftover, into: buffer, capacity: capacity) }
            switch stream.read(maxBytes: capacity) {
            case .data(let data) where !data.isEmpty:
                return copy(data, into: buffer, capacity: capacity)
            case .end:
                return Self.endOfStream
            case .data, .wait:
                if suspendUnlessWoken() { return 0 }
            }
        }
    }

    /// Suspends the connection unless a wake arrived since the last read; true when suspended.
    private func suspendUnlessWoken() -> Bool {
        flags.withLock { flags in
            if flags.wakePending || flags.ending {
                flags.wakePending = false
                return false
            }
            flags.suspended = true
            MHD_suspend_connection(connection)
            return true
        }
    }

    private func copy(_ data: Data, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(data.count, capacity)
        data.copyBytes(to: UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: count)
        if count < data.count {
            let rest = data.dropFirst(count)
            flags.withLock { $0.leftover = Data(rest) }
        }
        return count
    }

    /// The response is gone: the connection closed or the daemon stopped.
    private func finish() {
        flags.withLock { $0.ending = true }
        registry.remove(self)
        stream.close()
    }

    /// `MHD_CONTENT_READER_END_OF_STREAM`, which Swift does not import (a cast macro).
    private static let endOfStream = -1
}

/// The live streams of a server, so shutdown can end them.
final class StreamRegistry: Sendable {
    private let state = Mutex<(streams: [ObjectIdentifier: StreamState], closed: Bool)>(([:], false))

    /// Adds `stream`; false once the server is stopping (the stream should end at once).
    func register(_ stream: StreamState) -> Bool {
        state.withLock { state in
            state.streams[ObjectIdentifier(stream)] = stream
            return !state.closed
        }
    }

    func remove(_ stream: StreamState) {
        _ = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Ends every stream and every stream registered from now on.
    func endAll() {
        let streams = state.withLock { state in
            state.closed = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.wake(ending: true) }
    }
}
