import Foundation
import HTTP
import SyncAPI
import Testing

@Suite("Device API errors")
struct APIErrorTests {
    @Test("renders errors as the protocol envelope")
    func envelope() throws {
        let response = APIError.validationFailed(field: "lines[0].qty", "Bad.").response()
        guard case .bytes(let data) = response.body else {
            Issue.record("not bytes")
            return
        }
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(
            String(decoding: data, as: UTF8.self) == #"{"error":{"code":"VALIDATION_FAILED","details":{"field":"lines[0].qty"},"message":"Bad."}}"#)
    }
}
