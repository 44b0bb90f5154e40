import Foundation
import HTTP

/// A device journal as a download: CSV (RFC 4180) or JSON, with a file name naming the device.
///
/// The file is streamed: each batch of ops is encoded and sent as the client takes it, so
/// an export holds one batch and a bounded buffer, never the whole journal.
/// ```swift
/// JournalExport.response(.csv, deviceId: "dev-1") { add in
///     try store.forEachJournalBatch(deviceId: "dev-1", status: nil) { try add($0.map { JournalRow($0, timeZone: zone) }) }
/// }
/// ```
struct JournalExport {
    enum Format: String {
        case csv, json
    }

    static let columns = [
        "receivedAt", "occurredAt", "decidedAt", "deviceId", "opId", "clientSeq", "collection", "recordId", "type", "fields", "author",
        "status", "statusLabel", "code", "explanation", "message", "serverSeq",
    ]

    let format: Format
    let deviceId: String
    private var count = 0
    private let encoder: JSONEncoder

    private init(_ format: Format, deviceId: String) {
        (self.format, self.deviceId) = (format, deviceId)
        encoder = Response.defaultJSONEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
    }

    /// The file as an attachment, streamed: `produce` runs on the stream's own thread and
    /// hands each batch of rows, in file order, to the closure it is given.
    static func response(
        _ format: Format, deviceId: String, produce: @escaping @Sendable (_ add: ([JournalRow]) throws -> Void) throws -> Void
    ) -> Response {
        let body = ProducedStream { write in
            var export = JournalExport(format, deviceId: deviceId)
            try write(export.head())
            try produce { rows in try write(export.encode(rows)) }
            try write(export.tail())
        }
        let type = format == .csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8"
        let disposition = "attachment; filename=\"\(fileName(deviceId, format.rawValue))\""
        var response = Response(status: 200, headers: ["Content-Type": type, "Content-Disposition": disposition], body: .stream(body))
        PageRenderer.applySecurityHeaders(to: &response)
        return response
    }

    /// The start of the file: the CSV header line, or the JSON document up to its `ops` array.
    private func head() -> Data {
        switch format {
        case .csv: return Self.line(Self.columns)
        case .json:
            let device = String(decoding: (try? encoder.encode(deviceId)) ?? Data(#""""#.utf8), as: UTF8.self)
            return Data("{\n  \"deviceId\" : \(device),\n  \"ops\" : [".utf8)
        }
    }

    /// The end of the file: nothing for CSV, the closing of the JSON document.
    private func tail() -> Data {
        format == .json ? Data((count == 0 ? "]\n}" : "\n  ]\n}").utf8) : Data()
    }

    /// `rows`, which follow the ones encoded before.
    private mutating func encode(_ rows: [JournalRow]) -> Data {
        var data = Data()
        for row in rows {
            switch format {
            case .csv: data.append(Self.line(Self.values(row)))
            case .json:
                // Each op is pretty-printed on its own and indented into the array; string
                // values never hold a raw line break (JSON escapes it), so every "\n" is layout.
                let object = String(decoding: (try? encoder.encode(row)) ?? Data("{}".utf8), as: UTF8.self)
                data.append(Data(((count == 0 ? "\n" : ",\n") + "    " + object.replacingOccurrences(of: "\n", with: "\n    ")).utf8))
            }
            count += 1
        }
        return data
    }

    private static func values(_ row: JournalRow) -> [String] {
        let values: [String?] = [
            row.receivedAt, row.occurredAt, row.decidedAt, row.deviceId, row.opId, String(row.clientSeq), row.collection, row.recordId, row.type,
            row.fields.joined(separator: " "), row.author, row.status, row.statusLabel, row.code, row.explanation, row.message,
            row.serverSeq.map(String.init),
        ]
        return values.map { $0 ?? "" }
    }

    /// One CSV record, its fields quoted as needed, ended by CRLF.
    private static func line(_ fields: [String]) -> Data {
        Data((fields.map(cell).joined(separator: ",") + "\r\n").utf8)
    }

    /// One CSV field: quoted when it holds a comma, quote or line break (quotes doubled).
    /// A text starting with `=`, `+`, `-`, `@`, tab or carriage return gets a leading `'`,
    /// so a spreadsheet opening the file shows it instead of running it as a formula.
    static func cell(_ text: String) -> String {
        var value = text
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Int64(value) == nil {
            value = "'" + value
        }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `journal-<device>.csv`, keeping only characters safe in a header and a file name.
    static func fileName(_ deviceId: String, _ ext: String) -> String {
        let safe = String(
            deviceId.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) ? Character($0) : "_"
            })
        return "journal-\(safe).\(ext)"
    }
}
