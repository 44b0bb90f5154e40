import Foundation
import Postgres
import Testing

/// Each type goes to a real server as a bind, is cast to its column type, and comes back.
@Suite("PostgresCodable round trips")
struct CodableRoundTripTests {
    let connection: PostgresConnection

    init() throws {
        connection = try sessionConnection()
    }

    /// Sends `value`, casts it to `sqlType` on the server, and decodes what the server prints.
    private func roundTrip<T: PostgresCodable>(_ value: T, as sqlType: String) throws -> T {
        try connection.query("SELECT \(value)::\(unescaped: sqlType) AS value")[0].decode("value", as: T.self)
    }

    @Test("integers of every width, including their limits")
    func integers() throws {
        for value in [0, 1, -1, Int.max, Int.min] { #expect(try roundTrip(value, as: "int8") == value) }
        for value in [Int64.max, Int64.min, 7] { #expect(try roundTrip(value, as: "int8") == value) }
        for value in [Int32.max, Int32.min, -5] { #expect(try roundTrip(value, as: "int4") == value) }
        for value in [Int16.max, Int16.min] { #expect(try roundTrip(value, as: "int2") == value) }
    }

    @Test("doubles exactly, with infinities and NaN")
    func doubles() throws {
        for value in [
            0.1, -1e300, 1.0 / 3, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 123_456.789, Double.infinity, -Double.infinity,
        ] {
            #expect(try roundTrip(value, as: "float8") == value)
        }
        #expect(try roundTrip(Double.nan, as: "float8").isNaN)
    }

    @Test("booleans")
    func booleans() throws {
        #expect(try roundTrip(true, as: "bool") == true)
        #expect(try roundTrip(false, as: "bool") == false)
    }

    @Test("strings with quotes, backslashes, control characters and unicode")
    func strings() throws {
        for value in ["", "plain", "it's \"quoted\" \\ back\\slash", "tab\tnew\nline", "日本語 🎉 é ß", "{NULL,}"] {
            #expect(try roundTrip(value, as: "text") == value)
        }
    }

    @Test("timestamps to the microsecond, before and after 1970, and BC")
    func dates() throws {
        let values = [
            Date(timeIntervalSince1970: 1_700_000_000.123456), Date(timeIntervalSince1970: 0),
            Date(timeIntervalSince1970: -1_234_567_890.5), Date(timeIntervalSince1970: -62_135_596_800),
            Date(timeIntervalSince1970: -62_198_755_200), Date(timeIntervalSince1970: 4_102_444_799.999999),
        ]
        for value in values { #expect(try roundTrip(value, as: "timestamptz") == value) }
        #expect(try roundTrip(Date.distantFuture, as: "timestamptz") == .distantFuture)
    }

    @Test("timestamps printed with another zone, without zone, as a date or as infinity")
    func dateForms() throws {
        try connection.executeScript("SET TimeZone = 'Asia/Kolkata'")
        defer { try? connection.executeScript("SET TimeZone = 'UTC'") }
        let row = try connection.query(
            """
            SELECT '2024-03-01 10:00:00.5+00'::timestamptz AS zoned, '2024-03-01 10:00:00'::timestamp AS plain,
                   '2024-03-01'::date AS day, 'infinity'::timestamptz AS future, '-infinity'::timestamptz AS past
            """)[0]
        let expected = Date(timeIntervalSince1970: 1_709_287_200)
        #expect(try row.decode("zoned", as: Date.self) == expected.addingTimeInterval(0.5))
        #expect(try row.decode("plain", as: Date.self) == expected)
        #expect(try row.decode("day", as: Date.self) == expected.addingTimeInterval(-36_000))
        #expect(try row.decode("future", as: Date.self) == .distantFuture)
        #expect(try row.decode("past", as: Date.self) == .distantPast)
    }

    @Test("bytea, including empty and every byte value")
    func bytes() throws {
        for value in [Data(), Data([0, 255, 10, 92, 34, 39]), Data((0..<256).map { UInt8($0) })] {
            #expect(try roundTrip(value, as: "bytea") == value)
        }
    }

    @Test("UUIDs")
    func uuids() throws {
        let value = UUID()
        #expect(try roundTrip(value, as: "uuid") == value)
    }

    @Test("optionals as NULL, and NULL refused for a non-optional")
    func optionals() throws {
        #expect(try roundTrip(Int?.none, as: "int8") == nil)
        #expect(try roundTrip(Optional("x"), as: "text") == "x")
        let row = try connection.query("SELECT NULL::int AS missing")[0]
        #expect(row.isNull("missing"))
        let error = #expect(throws: PostgresError.self) { try row.decode("missing", as: Int.self) }
        #expect(error?.code == .decoding)
        #expect(error?.message.contains("missing") == true)
    }

    @Test("text arrays with quotes, backslashes, commas, braces, NULL and unicode")
    func textArrays() throws {
        let value: [String?] = ["a", "", "with space", "comma,brace}{", "quote\"back\\slash", "NULL", nil, "日本 🎉"]
        #expect(try roundTrip(value, as: "text[]") == value)
        #expect(try roundTrip([String](), as: "text[]") == [])
    }

    @Test("arrays of integers, UUIDs, bytea and timestamps")
    func otherArrays() throws {
        #expect(try roundTrip([1, -2, Int.max], as: "int8[]") == [1, -2, Int.max])
        let ids = [UUID(), UUID()]
        #expect(try roundTrip(ids, as: "uuid[]") == ids)
        let blobs = [Data([1, 2]), Data([92, 34])]
        #expect(try roundTrip(blobs, as: "bytea[]") == blobs)
        let dates = [Date(timeIntervalSince1970: 1.25), Date(timeIntervalSince1970: 2)]
        #expect(try roundTrip(dates, as: "timestamptz[]") == dates)
    }

    @Test("arrays bind to = ANY($1) and unnest($1::text[]) batch inserts")
    func arrayBinds() throws {
        try connection.execute("CREATE TEMP TABLE tags (id int, name text)")
        let names = ["a\"b", "c,d", "e\\f"]
        #expect(try connection.execute("INSERT INTO tags SELECT * FROM unnest(\([1, 2, 3])::int[], \(names)::text[])") == 3)
        let rows = try connection.query("SELECT id FROM tags WHERE name = ANY(\(["c,d", "e\\f"])) ORDER BY id")
        #expect(try rows.map { try $0.decode(0, as: Int.self) } == [2, 3])
    }

    @Test("jsonb documents from Codable values")
    func json() throws {
        struct Payload: Codable, Equatable {
            var name: String
            var count: Int
            var tags: [String]
        }
        let payload = Payload(name: "quote \" é 🎉", count: 3, tags: ["a", "b"])
        let decoded = try roundTrip(try PostgresJSON(encoding: payload), as: "jsonb").decode(Payload.self)
        #expect(decoded == payload)
        let field = try connection.query("SELECT \(try PostgresJSON(encoding: payload))::jsonb ->> 'name'")[0].decode(0, as: String.self)
        #expect(field == payload.name)
    }

    @Test("tuples decode by position and check the column count")
    func tuples() throws {
        let row = try connection.query("SELECT 1::int AS a, 'x' AS b, NULL::bool AS c")[0]
        let (a, b, c) = try row.decode((Int, String, Bool?).self)
        #expect(a == 1 && b == "x" && c == nil)
        #expect(row.columnNames == ["a", "b", "c"])
        #expect(throws: PostgresError.self) { try row.decode((Int, String).self) }
        let error = #expect(throws: PostgresError.self) { try row.decode("b", as: Int.self) }
        #expect(error?.code == .decoding)
    }
}
