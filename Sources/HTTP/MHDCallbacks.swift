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

    /// Admits new connections until shutdown begins; MHD then closes each one it accepts.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { context, _, _ in
        Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue().isAcceptingConnections ? .YES : .NO
    }

    /// > MHD_OPTION_NOTIFY_COMPLETED: called whenever a request has been completed (this
    /// > can be used for application-specific clean up).
    static let completed: MHD_RequestCompletedCallback = { context, _, slot, _ in
        guard let slot, let request = slot.pointee else { return }
        slot.pointee = nil
        Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue().completed(request)
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
