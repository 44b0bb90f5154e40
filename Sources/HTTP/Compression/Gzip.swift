internal import CZlib
public import Foundation

/// A zlib call that failed: its status code (`Z_DATA_ERROR`, `Z_MEM_ERROR`, …).
public struct GzipError: Error, Equatable, CustomStringConvertible {
    public let status: Int32

    public var description: String { "GzipError(zlib status \(status))" }
}

/// Compresses a body piece by piece into one gzip member (RFC 1952), through zlib.
///
/// ```swift
/// let deflater = try GzipDeflater()
/// var body = try deflater.compress(Data("{\"changes\":[".utf8))
/// body += try deflater.finish()
/// ```
/// Output is returned as zlib releases it, so a large body never sits in memory twice.
public final class GzipDeflater {
    /// zlib's level 1: the fastest. JSON of repeated keys compresses nearly as well as at the
    /// default level 6, at a third of the CPU.
    public static let fastest: Int32 = 1

    private var stream = z_stream()
    private var finished = false

    /// - Throws: `GzipError` when zlib cannot allocate its state.
    public init(level: Int32 = GzipDeflater.fastest) throws {
        // > windowBits can also be greater than 15 for optional gzip encoding. Add 16 to
        // > windowBits to write a simple gzip header and trailer around the compressed data.
        let status = CZlib_deflateInit2(&stream, level, 15 + 16, 8)
        guard status == Z_OK else { throw GzipError(status: status) }
    }

    deinit { deflateEnd(&stream) }

    /// Feeds `data`; returns whatever compressed bytes zlib has ready (often none).
    public func compress(_ data: Data) throws -> Data {
        try run(data, flush: Z_NO_FLUSH)
    }

    /// Ends the member: the remaining compressed bytes and the gzip trailer (CRC-32, length).
    public func finish() throws -> Data {
        guard !finished else { return Data() }
        finished = true
        return try run(Data(), flush: Z_FINISH)
    }

    private func run(_ input: Data, flush: Int32) throws -> Data {
        var output = Data()
        try input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            defer {
                stream.next_in = nil
                stream.avail_in = 0
            }
            try withUnsafeTemporaryAllocation(of: Bytef.self, capacity: 64 * 1024) { buffer in
                repeat {
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = deflate(&stream, flush)
                    // Z_BUF_ERROR only says no progress was possible: not an error here.
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw GzipError(status: status) }
                    output.append(buffer.baseAddress!, count: buffer.count - Int(stream.avail_out))
                } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
            }
        }
        return output
    }
}

/// Reads a gzip body back, for clients of the server's compressed answers.
public enum GzipInflater {
    /// The decompressed bytes of one gzip member.
    /// - Parameter limit: the most bytes to inflate; more is an error (a gzip bomb).
    /// - Throws: `GzipError` for data that is not gzip, is truncated, or inflates past `limit`.
    public static func decompress(_ data: Data, limit: Int = 256 << 20) throws -> Data {
        var stream = z_stream()
        let started = CZlib_inflateInit2(&stream, 15 + 16)
        guard started == Z_OK else { throw GzipError(status: started) }
        defer { inflateEnd(&stream) }
        var output = Data()
        try data.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(source.count)
            try withUnsafeTemporaryAllocation(of: Bytef.self, capacity: 64 * 1024) { buffer in
                var status = Z_OK
                while status != Z_STREAM_END {
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    guard status == Z_OK || status == Z_STREAM_END, produced > 0 || status == Z_STREAM_END,
                        output.count + produced <= limit
                    else { throw GzipError(status: status == Z_OK ? Z_DATA_ERROR : status) }
                    output.append(buffer.baseAddress!, count: produced)
                }
            }
        }
        return output
    }
}
