import Foundation
import SyncAPI
import Testing

@testable import HTTP

@Suite("Decoding JSON bodies")
struct RequestDecodingTests {
    private struct Order: Decodable {
        struct Line: Decodable {
            let sku: String
            let qty: Int
        }
        let orderId: String
        let lines: [Line]
    }

    private func request(_ json: String) -> Request {
        Request(method: .POST, path: "/v1/orders", body: Data(json.utf8))
    }

    /// A root value a custom decoder rejects although the JSON is fine.
    private struct PositiveNumber: Decodable {
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            guard try container.decode(Int.self) > 0 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Must be positive.")
            }
        }
    }

    /// The code and `details.field` the device API answers the decoding failure with.
    private func code<T: Decodable>(of body: String, as type: T.Type = Order.self) -> (code: String, field: String?)? {
        do {
            _ = try request(body).decode(type)
            return nil
        } catch let failure as HTTPFailure {
            guard case .bytes(let data) = APIFailureRenderer().response(for: failure).body,
                let envelope = try? JSONSerialization.jsonObject(with: data) as? [String: [String: Any]], let error = envelope["error"]
            else { return ("unrendered", nil) }
            return (error["code"] as? String ?? "", (error["details"] as? [String: Any])?["field"] as? String)
        } catch {
            return ("unexpected", nil)
        }
    }

    private func nested(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    @Test("decodes a well-formed body")
    func decodes() throws {
        let order = try request(#"{"orderId": "o1", "lines": [{"sku": "s", "qty": 2}]}"#).decode(Order.self)
        #expect(order.lines.first?.qty == 2)
    }

    @Test("rejects broken JSON as MALFORMED_JSON")
    func malformed() {
        #expect(code(of: #"{"orderId": "o1", "lines": [}"#)?.code == "MALFORMED_JSON")
        #expect(code(of: "")?.code == "MALFORMED_JSON")
    }

    @Test("rejects nesting deeper than 64 as MALFORMED_JSON, but allows 64")
    func depth() {
        #expect(JSONDepth.exceeds(Data(nested(64).utf8), limit: 64) == false)
        #expect(JSONDepth.exceeds(Data(nested(65).utf8), limit: 64) == true)
        #expect(code(of: #"{"orderId": "o1", "lines": [], "x": \#(nested(70))}"#)?.code == "MALFORMED_JSON")
    }

    @Test("ignores brackets inside strings, including after escaped quotes")
    func bracketsInStrings() {
        let inString = "\"" + String(repeating: "[", count: 100) + "\\\"" + String(repeating: "{", count: 100) + "\""
        #expect(JSONDepth.exceeds(Data("[\(inString)]".utf8), limit: 2) == false)
    }

    @Test("reports JSON of the wrong shape as VALIDATION_FAILED with the field path")
    func validation() {
        let wrongType = code(of: #"{"orderId": "o1", "lines": [{"sku": "s", "qty": "two"}]}"#)
        #expect(wrongType?.code == "VALIDATION_FAILED")
        #expect(wrongType?.field == "lines[0].qty")
        let missing = code(of: #"{"lines": []}"#)
        #expect(missing?.code == "VALIDATION_FAILED")
        #expect(missing?.field == "orderId")
        #expect(code(of: "-1", as: PositiveNumber.self)?.code == "VALIDATION_FAILED")
        #expect(code(of: "-", as: PositiveNumber.self)?.code == "MALFORMED_JSON")
    }
}
