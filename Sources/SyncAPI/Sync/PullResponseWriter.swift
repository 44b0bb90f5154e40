import Foundation
import SyncEngine
import SyncProtocol

/// Writes a `PullResponse` body around change objects that are already JSON text (written
/// by PostgreSQL), so a page of 500 records is never decoded and re-encoded in Swift; only the
/// compact form reads each upsert's `fieldMeta` (PROTOCOL.md, Pull).
///
/// The body is handed on in pieces of about `pieceBytes`, so a compressed answer can be
/// streamed while the rest is written.
struct PullResponseWriter {
    static let pieceBytes = 32 * 1024

    let page: PullPage
    let form: FieldMetaForm
    let minSupportedAppVersion: String
    let serverSchemaVersion: Int

    /// The whole body at once.
    func body() -> Data {
        var body = Data()
        write { body.append($0) }
        return body
    }

    /// Calls `sink` with each piece of the body, in order.
    /// - Throws: what `sink` throws (the client went away); nothing is written after it.
    func write(to sink: (Data) throws -> Void) rethrows {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.pieceBytes + 8 * 1024)
        var compact = CompactFieldMeta()
        bytes.append(contentsOf: #"{"changes":["#.utf8)
        for (index, change) in page.changes.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if let fieldMeta = change.fieldMeta {
                // The object without its closing brace, then its `fieldMeta` member. The whole
                // text is appended and the brace taken off: a string's UTF-8 is copied as a block,
                // a slice of it (`dropLast()`) byte by byte.
                bytes.append(contentsOf: change.json.utf8)
                bytes.removeLast()
                bytes.append(contentsOf: #","fieldMeta":"#.utf8)
                switch form {
                case .full: bytes.append(contentsOf: fieldMeta.utf8)
                case .compact: compact.write(fieldMeta, into: &bytes)
                }
                bytes.append(UInt8(ascii: "}"))
            } else {
                bytes.append(contentsOf: change.json.utf8)
            }
            if bytes.count >= Self.pieceBytes {
                try sink(Data(bytes))
                bytes.removeAll(keepingCapacity: true)
            }
        }
        bytes.append(contentsOf: "],".utf8)
        if form == .compact {
            bytes.append(contentsOf: #""fieldMetaOps":"#.utf8)
            compact.writeTable(into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""nextCursor":"#.utf8)
        JSONValue.string(page.nextCursor).writeCanonical(into: &bytes)
        bytes.append(contentsOf: #","hasMore":\#(page.hasMore),"newServerSeq":\#(page.newServerSeq),"minSupportedAppVersion":"#.utf8)
        JSONValue.string(minSupportedAppVersion).writeCanonical(into: &bytes)
        bytes.append(contentsOf: #","serverSchemaVersion":\#(serverSchemaVersion)}"#.utf8)
        try sink(Data(bytes))
    }
}
