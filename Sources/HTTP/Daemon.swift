internal import CMicroHTTPD
internal import Foundation

/// Owns one running `MHD_Daemon`, its listening socket and the retained `ServerCore`
/// its callbacks reach through their context pointer.
///
/// `HTTPServer` calls `stop()` once, under its state lock.
final class Daemon: @unchecked Sendable {
    let port: Int
    private let handle: OpaquePointer
    private let core: Unmanaged<ServerCore>
    /// Our descriptor of the listening socket. MHD gets a duplicate, which it closes
    /// itself at stop; keeping our own makes ownership plain on every path.
    private let listenSocket: Int32
    private var isStopped = false

    /// Binds and starts serving.
    /// - Throws: `HTTPServerError` when the address cannot be bound or MHD refuses to start.
    init(core: ServerCore, configuration: HTTPServer.Configuration) throws {
        let listenSocket = try ListenSocket.open(host: configuration.host, port: configuration.port)
        let daemonSocket = fcntl(listenSocket, F_DUPFD_CLOEXEC, 0)
        guard daemonSocket >= 0 else {
            close(listenSocket)
            throw HTTPServerError(code: .daemonFailed, message: "Cannot duplicate the listening socket.")
        }
        // The daemon's callbacks hold the core until `stop()` releases it.
        let retained = Unmanaged.passRetained(core)
        var options = Self.options(configuration, core: retained.toOpaque(), listenSocket: daemonSocket)
        let flags =
            MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        let handle = options.withUnsafeMutableBufferPointer { options in
            CMicroHTTPD_start_daemon(
                flags, 0, MHDCallbacks.acceptPolicy, retained.toOpaque(), MHDCallbacks.access, retained.toOpaque(),
                options.baseAddress)
        }
        guard let handle else {
            retained.release()
            close(listenSocket)
            throw HTTPServerError(code: .daemonFailed, message: "libmicrohttpd could not start (see the debug log).")
        }
        self.handle = handle
        self.core = retained
        self.listenSocket = listenSocket
        port = Int(CMicroHTTPD_bind_port(handle))
    }

    deinit {
        stop()
    }

    /// Closes every connection and joins MHD's threads. Every suspended connection must
    /// have been resumed first (MHD's rule); `ServerCore.stop` sees to that.
    ///
    /// `MHD_quiesce_daemon` is deliberately not used: with epoll and internal threads,
    /// libmicrohttpd 0.9.75 races its own threads removing the listening socket from
    /// the epoll set and aborts the process ("Failed to remove listen FD from epoll set").
    /// The accept policy refuses new connections during shutdown instead.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        MHD_stop_daemon(handle)
        close(listenSocket)
        core.release()
    }

    private static func options(
        _ configuration: HTTPServer.Configuration, core: UnsafeMutableRawPointer, listenSocket: Int32
    )
        -> [MHD_OptionItem]
    {
        var options = [
            // First, so start-up messages go to the logger too (the header asks for this).
            item(.EXTERNAL_LOGGER, unsafeBitCast(MHDCallbacks.log, to: Int.self), core),
            item(.LISTEN_SOCKET, Int(listenSocket)),
            item(.CONNECTION_LIMIT, configuration.connectionLimit),
            item(.CONNECTION_MEMORY_LIMIT, configuration.connectionMemoryLimit),
            item(.CONNECTION_TIMEOUT, configuration.idleTimeoutSeconds),
            item(.NOTIFY_COMPLETED, unsafeBitCast(MHDCallbacks.completed, to: Int.self), core),
            item(.NOTIFY_CONNECTION, unsafeBitCast(MHDCallbacks.connectionNotice, to: Int.self), core),
        ]
        if configuration.mhdThreads > 1 {
            options.append(item(.THREAD_POOL_SIZE, configuration.mhdThreads))
        }
        options.append(item(.END, 0))
        return options
    }

    private static func item(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
        MHD_OptionItem(option: option, value: value, ptr_value: pointer)
    }
}
