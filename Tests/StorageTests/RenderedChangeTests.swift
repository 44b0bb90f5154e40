import Foundation
import Postgres
import PostgresTesting
import Testing

/// The change JSON PostgreSQL renders when a record is written (migrations 0015 and 0017).
@Suite("Change JSON rendered by the database")
struct RenderedChangeTests {
    /// Texts that need escaping, or look like the wrapper json_string() strips.
    private let awkward: [String] =
        ["jobs", "", "a\"b\\c", "line\nbreak\ttab\r", "ünïcödé 😀", " : ", "}{", "{\"k\" : 1}", "\u{7f}\u{2028}\u{2029}"]
        + (1..<32).map { String(UnicodeScalar(UInt8($0))) }

    @Test("json_string() quotes every text exactly as to_json() does")
    func quotesLikeToJSON() throws {
        let database = try StorageDatabase.migrated()
        defer { database.shutdown() }
        let rows = try database.withConnection { connection in
            try connection.query("SELECT x, json_string(x), to_json(x)::text FROM unnest(\(awkward)::text[]) AS x")
        }
        #expect(rows.count == awkward.count)
        for row in rows {
            let text = try row.decode(0, as: String.self)
            #expect(try row.decode(1, as: String.self) == row.decode(2, as: String.self), "\(text.debugDescription)")
        }
    }

    @Test("record_change_json() renders every shape as JSON with the record's values")
    func rendersEveryShape() throws {
        let database = try StorageDatabase.migrated()
        defer { database.shutdown() }
        let rendered = try database.withConnection { connection in
            try connection.query(
                """
                SELECT record_change_json(\("jobs")::text, \("job-\"1\"")::text, 7, NULL, '{"title": "a\\"b"}', 2, NULL),
                       record_change_json(\("jobs")::text, \("job-2")::text, 8, NULL, '{}', 1, \("c-\\1")::text),
                       record_change_json(\("jobs")::text, \("job-3")::text, 9, 9, '{}', 1, NULL)
                """)[0]
        }
        func object(_ column: Int) throws -> NSDictionary? {
            try JSONSerialization.jsonObject(with: Data(rendered.decode(column, as: String.self).utf8)) as? NSDictionary
        }
        #expect(
            try object(0)
                == [
                    "collection": "jobs", "recordId": "job-\"1\"", "serverSeq": 7, "type": "upsert", "payload": ["title": "a\"b"],
                    "schemaVersion": 2,
                ])
        #expect(try object(1)?["conflict"] as? NSDictionary == ["id": "c-\\1", "state": "open"])
        #expect(
            try object(2)
                == ["collection": "jobs", "recordId": "job-3", "serverSeq": 9, "type": "delete", "tombstone": ["deletedServerSeq": 9]])
    }
}
