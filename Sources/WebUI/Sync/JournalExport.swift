import Foundation
import HTTP

/// A device journal as a download: CSV (RFC 4180) or JSON, with a file name naming the device.
enum JournalExport {
    static let columns = [
        "receivedAt", "occurredAt", "decidedAt", "deviceId", "opId", "clientSeq", "collection", "recordId", "type", "fields", "author",
        "status", "statusLabel", "code", "explanation", "message", "serverSeq",
    ]

    static func csv(_ rows: [JournalRow], deviceId: String) -> Response {
        var lines = [columns.map(cell).joined(separator: ",")]
        for row in rows {
            let values: [String?] = [
                row.receivedAt, row.occurredAt, row.decidedAt, row.deviceId, row.opId, String(row.clientSeq), row.collection, row.recordId, row.type,
                row.fields.joined(separator: " "), row.author, row.status, row.statusLabel, row.code, row.explanation, row.message,
                row.serverSeq.map(String.init),
            ]
            lines.append(values.map { cell($0 ?? "") }.joined(separator: ","))
        }
        return download(Data((lines.joined(separator: "\r\n") + "\r\n").utf8), type: "text/csv; charset=utf-8", name: fileName(deviceId, "csv"))
    }

    static func json(_ rows: [JournalRow], deviceId: String) -> Response {
        let encoder = Response.defaultJSONEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let data = (try? encoder.encode(Document(deviceId: deviceId, ops: rows))) ?? Data("{}".utf8)
        return download(data, type: "application/json; charset=utf-8", name: fileName(deviceId, "json"))
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

    private static func download(_ data: Data, type: String, name: String) -> Response {
        var response = Response(
            status: 200, headers: ["Content-Type": type, "Content-Disposition": "attachment; filename=\"\(name)\""], body: .bytes(data))
        PageRenderer.applySecurityHeaders(to: &response)
        return response
    }

    /// The JSON export: the device and its ops.
    private struct Document: Encodable {
        let deviceId: String
        let ops: [JournalRow]
    }
}
