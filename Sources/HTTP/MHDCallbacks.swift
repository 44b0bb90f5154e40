internal import CMicroHTTPD
internal import Foundation
import Support

/// The C entry points libmicrohttpd calls on its network threads. They capture nothing
/// (C function pointers cannot) and are not actor-isolated: the `ServerCore` arrives as
/// the unretained context pointer that `Daemon` keeps retained.
enum MHDCallbacks {
    static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, slot in
        let core = Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
        return core.access(connection!, url: url!, method: method!, upload: upload, uploadSize: uploadSize!, slot: slot!)
    }

    /// Admits new connections until shutdown begins, within the per-address limit; MHD
    /// closes each connection refused here.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { context, address, _ in
        let core = Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
        return core.admits(address.map(ConnectionValues.text(of:)) ?? "") ? .YES : .NO
    }

    /// > MHD_OPTION_NOTIFY_CONNECTION: called when a new connection has been started or
    /// > when a connection is closed.
    static let connectionNotice: MHD_NotifyConnectionCallback = { context, connection, _, notice in
        guard let context, let connection else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
        if notice.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
            core.connections.opened(
                connection, descriptor: CMicroHTTPD_connection_fd(connection), address: ConnectionValues.remoteAddress(of: connection))
        } else {
            core.connections.closed(connection)
        }
    }

    /// > MHD_OPTION_NOTIFY_COMPLETED: called whenever a request has been completed (this
    /// > can be used for application-specific clean up).
    static let completed: MHD_RequestCompletedCallback = { context, connection, slot, _ in
        let core = Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
        if let connection { core.connections.requestCompleted(connection) }
        guard let slot, let request = slot.pointee else { return }
        slot.pointee = nil
        core.completed(request)
    }

    /// Routes MHD's own messages (malformed requests, resource limits) to the debug log.
    static let log: MHD_LogCallback = { context, format, arguments in
        guard let context, let format, let arguments else { return }
        var text = [CChar](repeating: 0, count: 512)
        _ = vsnprintf(&text, text.count, format, arguments)
        let message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().logger.debug(
            "libmicrohttpd", metadata: ["mhd.message": message.trimmingCharacters(in: .whitespacesAndNewlines)])
    }
}
