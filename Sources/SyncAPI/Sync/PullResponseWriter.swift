import Foundation
import SyncProtocol

/// Writes a `PullResponse` body around change objects that are already JSON text (written
/// by PostgreSQL), so a page of 500 records is never decoded and re-encoded in Swift.
/// The shape is exactly `PullResponse`'s.
enum PullResponseWriter {
    static func write(
        changes: [String], nextCursor: String, hasMore: Bool, newServerSeq: Int64, minSupportedAppVersion: String,
        serverSchemaVersion: Int
    ) -> Data {
        var body = Data("{\"changes\":[".utf8)
        body.reserveCapacity(changes.reduce(256) { $0 + $1.utf8.count + 1 })
        for (index, change) in changes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: change.utf8)
        }
        body.append(contentsOf: "],\"nextCursor\":".utf8)
        body.append(JSONValue.string(nextCursor).canonicalData())
        body.append(contentsOf: ",\"hasMore\":\(hasMore),\"newServerSeq\":\(newServerSeq),\"minSupportedAppVersion\":".utf8)
        body.append(JSONValue.string(minSupportedAppVersion).canonicalData())
        body.append(contentsOf: ",\"serverSchemaVersion\":\(serverSchemaVersion)}".utf8)
        return body
    }
}
