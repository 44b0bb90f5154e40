internal import Foundation
internal import Synchronization

/// A uniquely named file that receives a request body as it arrives, deleted when the
/// request is over. Owns the file descriptor while writing.
///
/// The network thread writes it, the worker hands it to the handler, and either side
/// may delete it (the completion notice can race an abandoned handler at shutdown), so
/// the descriptor lives behind a lock.
final class TemporaryFile: Sendable {
    let url: URL
    /// The open descriptor (-1 once closed) and whether the file was deleted.
    private let state: Mutex<(descriptor: Int32, isRemoved: Bool)>

    /// Creates the file in `directory` (mode 0600).
    /// - Throws: `POSIXError` when the file cannot be created.
    init(in directory: URL) throws {
        var template = Array(directory.appendingPathComponent("fieldsync-body-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Not inherited by processes the server spawns (e.g. pg_ctl).
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        state = Mutex((descriptor, false))
        url = URL(fileURLWithPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    deinit {
        remove()
    }

    /// Appends `count` bytes.
    /// - Throws: `POSIXError` when the write fails (e.g. the disk is full) or the file is closed.
    func write(_ bytes: UnsafeRawPointer, count: Int) throws {
        try state.withLock { state in
            var offset = 0
            while offset < count {
                let written = state.descriptor < 0 ? -1 : Foundation.write(state.descriptor, bytes + offset, count - offset)
                if written < 0 {
                    if state.descriptor >= 0 && errno == EINTR { continue }
                    throw POSIXError(state.descriptor < 0 ? .EBADF : POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                offset += written
            }
        }
    }

    /// Closes the descriptor; the file stays until `remove()`.
    func finishWriting() {
        state.withLock { Self.close(&$0.descriptor) }
    }

    /// Closes and deletes the file; harmless when the handler already moved it away.
    func remove() {
        state.withLock { state in
            Self.close(&state.descriptor)
            guard !state.isRemoved else { return }
            state.isRemoved = true
            unlink(url.path)
        }
    }

    private static func close(_ descriptor: inout Int32) {
        guard descriptor >= 0 else { return }
        Foundation.close(descriptor)
        descriptor = -1
    }
}
