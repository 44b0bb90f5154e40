import Foundation

/// Owns one POSIX file descriptor: reads, writes and flushes it, and closes it exactly once.
///
/// ```swift
/// let file = try OpenFile(url, flags: O_RDONLY)
/// let count = try file.read(into: buffer)
/// ```
/// Used by one thread at a time (a request handler), so it needs no lock.
final class OpenFile {
    let url: URL
    private var descriptor: Int32

    /// Opens `url`; `O_CLOEXEC` is always added so processes the server spawns (pg_ctl) never inherit it.
    /// - Throws: `POSIXError` from `open(2)`, e.g. `ENOENT` or `EEXIST` with `O_EXCL`.
    init(_ url: URL, flags: Int32, mode: mode_t = 0o600) throws {
        let descriptor = open(url.path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError.current() }
        self.url = url
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { Foundation.close(descriptor) }
    }

    /// Fills `buffer` from the current offset; returns the bytes read, 0 at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw POSIXError.current() }
        }
    }

    /// Writes all of `bytes` (short writes are continued).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError.current()
            }
            offset += count
        }
    }

    /// Writes all of `bytes` at `offset`, leaving the file offset alone (`pwrite(2)`).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError.current()
            }
            done += count
        }
    }

    /// The file's size in bytes.
    func size() throws -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw POSIXError.current() }
        return Int64(status.st_size)
    }

    /// > fsync() transfers ("flushes") all modified in-core data of the file referred to by the
    /// > file descriptor fd to the disk device … so that all changed information can be retrieved
    /// > even if the system crashes.
    /// Works on read-only descriptors too, which is how directories are flushed.
    func sync() throws {
        while fsync(descriptor) != 0 {
            if errno != EINTR { throw POSIXError.current() }
        }
    }

    /// Like `sync()`, but skips metadata that is not needed to read the data back (such as
    /// the modification time): `fdatasync(2)`.
    func syncData() throws {
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw POSIXError.current() }
        }
    }

    /// Closes the descriptor; a failing close (possible on network file systems) is reported.
    func close() throws {
        guard descriptor >= 0 else { return }
        let result = Foundation.close(descriptor)
        descriptor = -1
        if result != 0 { throw POSIXError.current() }
    }
}

extension POSIXError {
    /// The error `errno` currently holds.
    static func current() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
