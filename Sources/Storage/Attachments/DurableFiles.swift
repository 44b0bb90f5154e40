import Foundation

/// File-system steps that are durable when they return: file data and the directory entries
/// that name it are flushed, so nothing acknowledged to a device is lost in a crash.
///
/// A file becomes visible under its final name only by `rename(2)`, which is atomic: readers
/// see the old state or the complete new file, never a half-written one.
enum DurableFiles {
    /// Flushes a file's data to disk.
    static func sync(_ url: URL) throws {
        try OpenFile(url, flags: O_RDONLY).sync()
    }

    /// Flushes a directory, making entries created or renamed into it durable.
    static func syncDirectory(_ url: URL) throws {
        try OpenFile(url, flags: O_RDONLY | O_DIRECTORY).sync()
    }

    /// Creates `directory` and its missing parents (mode 0700), flushing each parent that
    /// gained an entry. Racing creators are fine: an existing directory counts as created.
    static func createDirectory(_ directory: URL) throws {
        var missing: [URL] = []
        var current = directory.standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path) && current.path != "/" {
            missing.append(current)
            current = current.deletingLastPathComponent()
        }
        for url in missing.reversed() {
            if mkdir(url.path, 0o700) != 0 && errno != EEXIST { throw POSIXError.current() }
            try syncDirectory(url.deletingLastPathComponent())
        }
    }

    /// Moves a flushed file to `destination`, replacing any file there, and flushes the
    /// destination directory.
    ///
    /// Across file systems (`EXDEV`, e.g. a blob directory on another volume) the bytes are
    /// copied to a hidden sibling of `destination`, flushed and renamed into place, so the
    /// destination still appears atomically; the source is then deleted.
    static func move(_ source: URL, to destination: URL) throws {
        if rename(source.path, destination.path) != 0 {
            guard errno == EXDEV else { throw POSIXError.current() }
            let sibling = destination.deletingLastPathComponent().appendingPathComponent(".partial-\(UUID().uuidString)")
            do {
                try copy(source, to: sibling)
                guard rename(sibling.path, destination.path) == 0 else { throw POSIXError.current() }
            } catch {
                unlink(sibling.path)
                throw error
            }
            unlink(source.path)
        }
        try syncDirectory(destination.deletingLastPathComponent())
    }

    /// Copies `source` to a new file `destination` and flushes it.
    /// - Throws: `POSIXError`; `EEXIST` when `destination` exists.
    static func copy(_ source: URL, to destination: URL) throws {
        let output = try OpenFile(destination, flags: O_WRONLY | O_CREAT | O_EXCL)
        let input = try OpenFile(source, flags: O_RDONLY)
        try withCopyBuffer { buffer in
            var count = try input.read(into: buffer)
            while count > 0 {
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                count = try input.read(into: buffer)
            }
        }
        try output.sync()
        try output.close()
    }

    /// Runs `body` with a 1 MiB scratch buffer: big enough that syscalls do not dominate,
    /// small enough that eight parallel uploads stay far below the memory budget.
    static func withCopyBuffer<T>(_ body: (UnsafeMutableRawBufferPointer) throws -> T) rethrows -> T {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        return try body(buffer)
    }
}
