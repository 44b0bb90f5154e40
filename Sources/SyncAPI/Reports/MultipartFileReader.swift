import Foundation

/// Why a multipart body could not be read.
enum MultipartError: Error, Equatable {
    case missingBoundary
    case malformed(String)
    case noFilePart
}

/// The file part of a multipart/form-data body, copied to its own file.
struct MultipartFile: Equatable {
    var fieldName: String?
    var fileName: String?
    var contentType: String?
    /// The part's bytes, exactly (no trailing CRLF).
    var url: URL
}

/// Reads multipart/form-data (RFC 7578) from a file in fixed-size blocks, never holding the
/// whole body: a body streamed to disk may be far larger than memory should hold.
///
/// The stream is read as if it began with CRLF, so the first delimiter and every later one are
/// the same pattern `CRLF--boundary`; a preamble before it is skipped. A part's content runs to
/// the next delimiter, so bytes that merely resemble the boundary (without the CRLF and full
/// boundary) stay content, even when the delimiter straddles two blocks.
struct MultipartFileReader {
    static let maxHeaderBytes = 16 << 10
    private let handle: FileHandle
    private let delimiter: Data
    private let blockSize: Int
    private var buffer = Data("\r\n".utf8)
    private var atEnd = false

    init(body: URL, boundary: String, blockSize: Int = 64 << 10) throws {
        handle = try FileHandle(forReadingFrom: body)
        delimiter = Data("\r\n--\(boundary)".utf8)
        self.blockSize = max(blockSize, 1)
    }

    /// The `boundary` parameter of a `multipart/form-data` Content-Type (quoted or not).
    static func boundary(contentType: String?) throws -> String {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { throw MultipartError.missingBoundary }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
            guard (1...70).contains(value.utf8.count) else { throw MultipartError.missingBoundary }
            return value
        }
        throw MultipartError.missingBoundary
    }

    /// Copies the first part that carries a file name (or is named `photo`) to a new file in
    /// `directory`; the other parts are skipped.
    mutating func firstFile(into directory: URL) throws -> MultipartFile {
        defer { try? handle.close() }
        guard try copy(to: nil) else { throw MultipartError.malformed("no opening boundary") }
        while try startPart() {
            let headers = try partHeaders()
            let disposition = headers["content-disposition"] ?? ""
            let name = Self.parameter("name", in: disposition)
            let fileName = Self.parameter("filename", in: disposition)
            guard fileName != nil || name == "photo" else {
                guard try copy(to: nil) else { break }
                continue
            }
            let url = directory.appendingPathComponent("part-" + UUID().uuidString)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw MultipartError.malformed("cannot write part") }
            let output = try FileHandle(forWritingTo: url)
            defer { try? output.close() }
            guard try copy(to: output) else {
                try? FileManager.default.removeItem(at: url)
                throw MultipartError.malformed("the file part has no closing boundary")
            }
            return MultipartFile(fieldName: name, fileName: fileName, contentType: headers["content-type"], url: url)
        }
        throw MultipartError.noFilePart
    }

    /// After a delimiter: false at the closing `--`, true before a part's headers.
    private mutating func startPart() throws -> Bool {
        try fill(2)
        if buffer.starts(with: Data("--".utf8)) { return false }
        // Transport padding (spaces, tabs) may follow the boundary before its CRLF.
        while let first = buffer.first, first == 0x20 || first == 0x09 {
            buffer.removeFirst()
            try fill(2)
        }
        guard buffer.starts(with: Data("\r\n".utf8)) else { throw MultipartError.malformed("boundary not followed by CRLF") }
        buffer.removeFirst(2)
        return true
    }

    /// The part's header lines up to the empty line, names lowercased.
    private mutating func partHeaders() throws -> [String: String] {
        let end = Data("\r\n\r\n".utf8)
        buffer.insert(contentsOf: Data("\r\n".utf8), at: buffer.startIndex)  // so a part with no headers is CRLF CRLF too
        var range = buffer.range(of: end)
        while range == nil, !atEnd, buffer.count <= Self.maxHeaderBytes {
            try readBlock()
            range = buffer.range(of: end)
        }
        guard let range, range.lowerBound - buffer.startIndex <= Self.maxHeaderBytes else {
            throw MultipartError.malformed("part headers too long or unterminated")
        }
        let text = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex..<range.upperBound)
        var headers: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// Moves bytes up to the next delimiter into `output` (or drops them) and consumes the
    /// delimiter; false when the stream ends first.
    private mutating func copy(to output: FileHandle?) throws -> Bool {
        while true {
            if let range = buffer.range(of: delimiter) {
                try output?.write(contentsOf: buffer[buffer.startIndex..<range.lowerBound])
                buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                return true
            }
            // Keep the tail that could be the start of a delimiter split across blocks.
            let safe = max(buffer.count - (delimiter.count - 1), 0)
            try output?.write(contentsOf: buffer.prefix(safe))
            buffer.removeFirst(safe)
            if atEnd { return false }
            try readBlock()
        }
    }

    private mutating func fill(_ count: Int) throws {
        while buffer.count < count, !atEnd { try readBlock() }
    }

    private mutating func readBlock() throws {
        guard let block = try handle.read(upToCount: blockSize), !block.isEmpty else {
            atEnd = true
            return
        }
        buffer.append(block)
    }

    /// A `name="value"` parameter of a Content-Disposition header.
    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            return pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") && pair[1].count >= 2 ? String(pair[1].dropFirst().dropLast()) : pair[1]
        }
        return nil
    }
}
