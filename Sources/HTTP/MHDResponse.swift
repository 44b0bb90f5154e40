internal import CMicroHTTPD
internal import Foundation

/// Owns one `MHD_Response` built from a `Response`, until it is queued on a connection.
///
/// Built on the worker that ran the handler (copying bytes and opening files there keeps
/// the network threads lean) and queued by the network thread; `RequestContext`'s lock
/// orders that handoff.
final class MHDResponse: @unchecked Sendable {
    let status: Int
    private let handle: OpaquePointer

    private init(status: Int, handle: OpaquePointer) {
        self.status = status
        self.handle = handle
    }

    deinit {
        // > MHD_destroy_response: Destroy a response object and associated resources.
        // > Note that libmicrohttpd may keep some of the resources around if the response
        // > is still in the queue for some clients, so the memory may not necessarily be
        // > freed immediately.
        MHD_destroy_response(handle)
    }

    /// Builds the MHD response for `response`; a file that cannot be opened or a header
    /// MHD refuses yields nil (the caller answers 500).
    /// - Parameter streamFactory: Wraps a `.stream` body for MHD's content reader.
    static func make(_ response: Response, streamFactory: (any ResponseStream) -> StreamState) -> MHDResponse? {
        let handle: OpaquePointer?
        switch response.body {
        case .bytes(let data):
            handle = data.withUnsafeBytes { bytes in
                // MUST_COPY: MHD keeps its own copy, so the Swift buffer may go away.
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .file(let url, let range):
            handle = fileResponse(url, range: range)
        case .stream(let stream):
            handle = streamFactory(stream).makeResponse()
        }
        guard let handle else { return nil }
        let prepared = MHDResponse(status: response.status, handle: handle)
        for (name, value) in response.headers where !HTTPHeaders.sameName(name, "Content-Length") {
            guard prepared.addHeader(name, value) else { return nil }
        }
        return prepared
    }

    /// Adds a header; false when MHD refuses it (e.g. a value containing CR or LF).
    func addHeader(_ name: String, _ value: String) -> Bool {
        MHD_add_response_header(handle, name, value) == .YES
    }

    /// Queues the response on `connection`. MHD keeps its own reference.
    func queue(on connection: OpaquePointer) -> Bool {
        MHD_queue_response(connection, UInt32(clamping: status), handle) == .YES
    }

    /// An fd-backed response: MHD sends it with `sendfile` and closes the descriptor.
    private static func fileResponse(_ url: URL, range: Range<Int64>?) -> OpaquePointer? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        let whole: Range<Int64> = 0..<Int64(status.st_size)
        let bytes = range.map { $0.clamped(to: whole) } ?? whole
        guard let handle = MHD_create_response_from_fd_at_offset64(UInt64(bytes.count), descriptor, UInt64(bytes.lowerBound)) else {
            close(descriptor)
            return nil
        }
        return handle
    }
}
