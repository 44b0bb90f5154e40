import Foundation
import Testing

@testable import WebUI

@Suite("CSRF tokens")
struct CSRFProtectionTests {
    let csrf = CSRFProtection(key: Data(repeating: 7, count: 32))

    @Test("A session's token verifies for that session only")
    func boundToSession() {
        let token = csrf.token(for: "session-a", purpose: .session)
        #expect(csrf.verify(token, for: "session-a", purpose: .session))
        #expect(!csrf.verify(token, for: "session-b", purpose: .session))
        #expect(csrf.token(for: "session-a", purpose: .session) == token)
    }

    @Test("Missing, empty, malformed and altered tokens are refused")
    func refusals() {
        let token = csrf.token(for: "s", purpose: .session)
        #expect(!csrf.verify(nil, for: "s", purpose: .session))
        #expect(!csrf.verify("", for: "s", purpose: .session))
        #expect(!csrf.verify("not base64 !", for: "s", purpose: .session))
        var altered = Array(token)
        altered[0] = altered[0] == "A" ? "B" : "A"
        #expect(!csrf.verify(String(altered), for: "s", purpose: .session))
        #expect(!csrf.verify(String(token.dropLast()), for: "s", purpose: .session))
    }

    @Test("A token of one purpose or key does not verify for another")
    func separation() {
        let login = csrf.token(for: "nonce", purpose: .login)
        #expect(!csrf.verify(login, for: "nonce", purpose: .session))
        let other = CSRFProtection(key: Data(repeating: 8, count: 32))
        #expect(!other.verify(csrf.token(for: "s", purpose: .session), for: "s", purpose: .session))
    }
}
