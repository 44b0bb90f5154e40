import Foundation
import Testing

@testable import SyncAPI

/// The streaming multipart/form-data reader behind photo uploads, on boundary edge cases.
@Suite("Report contract: multipart reader")
struct ReportContractMultipartTests {
    /// Writes `body` to a file, reads it with tiny blocks (so delimiters straddle blocks) and
    /// returns the file part's bytes.
    func extract(_ body: Data, boundary: String = "XyZ", blockSize: Int = 3) throws -> (MultipartFile, Data) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("body")
        try body.write(to: url)
        var reader = try MultipartFileReader(body: url, boundary: boundary, blockSize: blockSize)
        let part = try reader.firstFile(into: directory)
        return (part, try Data(contentsOf: part.url))
    }

    static func body(_ text: String) -> Data { Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    @Test("The file part is found after a preamble and a text field, bytes exact, with its headers")
    func fileAfterField() throws {
        let body = Self.body(
            """
            preamble
            --XyZ
            Content-Disposition: form-data; name="note"

            hello
            --XyZ
            Content-Disposition: form-data; name="photo"; filename="a.jpg"
            Content-Type: image/jpeg

            JPEG\u{0}bytes
            --XyZ--

            """)
        for blockSize in [1, 3, 7, 4096] {
            let (part, bytes) = try extract(body, blockSize: blockSize)
            #expect(bytes == Data("JPEG\u{0}bytes".utf8))
            #expect(part.fileName == "a.jpg" && part.fieldName == "photo" && part.contentType == "image/jpeg")
        }
    }

    @Test("Content that resembles the delimiter without being it, CRLFs inside content, and an empty file stay exact")
    func lookalikes() throws {
        let tricky = "line--XyZ\n-XyZ\n\n--Xy\n--XY"
        let body = Self.body("--XyZ\nContent-Disposition: form-data; name=\"photo\"; filename=\"p\"\n\n\(tricky)\n--XyZ--")
        #expect(try extract(body).1 == Self.body(tricky))
        let empty = Self.body("--XyZ\nContent-Disposition: form-data; filename=\"e\"\n\n\n--XyZ--")
        #expect(try extract(empty).1.isEmpty)
    }

    @Test("A body that starts with CRLF, or has padding after the boundary, still parses")
    func leadingCRLFAndPadding() throws {
        let body = Self.body("\n--XyZ  \nContent-Disposition: form-data; name=\"photo\"\n\nabc\n--XyZ--")
        #expect(try extract(body).1 == Data("abc".utf8))
    }

    @Test("A missing closing delimiter, no file part, or an unterminated header block are refused")
    func refusals() throws {
        let truncated = Self.body("--XyZ\nContent-Disposition: form-data; filename=\"p\"\n\nabc")
        #expect(throws: MultipartError.self) { try extract(truncated) }
        let noFile = Self.body("--XyZ\nContent-Disposition: form-data; name=\"note\"\n\nhi\n--XyZ--")
        #expect(throws: MultipartError.noFilePart) { try extract(noFile) }
        let noHeaders = Self.body("--XyZ\nContent-Disposition: form-data; filename=\"p\"")
        #expect(throws: MultipartError.self) { try extract(noHeaders) }
    }

    @Test("The boundary comes from the Content-Type, quoted or not, and must be 1 to 70 characters")
    func boundaryParameter() throws {
        #expect(try MultipartFileReader.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(try MultipartFileReader.boundary(contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(throws: MultipartError.missingBoundary) { try MultipartFileReader.boundary(contentType: "application/json") }
        #expect(throws: MultipartError.missingBoundary) { try MultipartFileReader.boundary(contentType: "multipart/form-data") }
        let long = String(repeating: "b", count: 71)
        #expect(throws: MultipartError.missingBoundary) { try MultipartFileReader.boundary(contentType: "multipart/form-data; boundary=\(long)") }
    }
}
