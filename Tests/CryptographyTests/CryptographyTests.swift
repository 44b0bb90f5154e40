import Cryptography
import Foundation
import Testing

@Suite("Cryptography")
struct CryptographyTests {
    @Test("SHA-256 matches the FIPS 180-2 vector, one-shot and incremental")
    func sha256Vectors() throws {
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(SHA256.hash(Data("abc".utf8)).hexString == expected)
        var hasher = try SHA256()
        try hasher.update(Data("a".utf8))
        try hasher.update(Data("bc".utf8))
        #expect(try hasher.finalize().hexString == expected)
        #expect(SHA256.hash(Data()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("HMAC-SHA256 matches RFC 4231 test case 2 and verifies in constant time")
    func hmacVector() {
        let key = Data("Jefe".utf8)
        let message = Data("what do ya want for nothing?".utf8)
        let mac = HMAC.sha256(key: key, message: message)
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMAC.verify(mac, key: key, message: message))
        var tampered = mac
        tampered[0] ^= 1
        #expect(!HMAC.verify(tampered, key: key, message: message))
        #expect(!HMAC.verify(mac.prefix(31), key: key, message: message))
    }

    @Test("PBKDF2-HMAC-SHA256 matches the RFC 7914 vector through the stored-hash format")
    func pbkdf2Vector() throws {
        let derived = Data(
            hexString: """
                55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc\
                49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783
                """)!
        let stored = "pbkdf2-sha256$1$\(Data("salt".utf8).base64EncodedString())$\(derived.base64EncodedString())"
        let hasher = PasswordHasher(iterations: 1)
        #expect(hasher.verify("passwd", against: stored))
        #expect(!hasher.verify("passwd!", against: stored))
    }

    @Test("Password hashes are salted, self-describing and reject malformed input")
    func passwordRoundTrip() throws {
        let hasher = PasswordHasher(iterations: 1_000)
        let first = try hasher.hash("correct horse")
        let second = try hasher.hash("correct horse")
        #expect(first != second)
        #expect(first.hasPrefix("pbkdf2-sha256$1000$"))
        #expect(hasher.verify("correct horse", against: first))
        #expect(!hasher.verify("wrong", against: first))
        #expect(!hasher.verify("correct horse", against: "garbage"))
        #expect(!hasher.verify("correct horse", against: "pbkdf2-sha256$0$AA==$AA=="))
        #expect(PasswordHasher().iterations >= 600_000)
    }

    @Test("Random tokens are 256-bit, URL-safe and distinct")
    func randomTokens() {
        let tokens = Set((0..<100).map { _ in SecureRandom.token() })
        #expect(tokens.count == 100)
        for token in tokens {
            #expect(Data(base64URLEncoded: token)?.count == 32)
            #expect(!token.contains("+") && !token.contains("/") && !token.contains("="))
        }
    }

    @Test("Hex parsing rejects odd lengths and foreign characters")
    func hexParsing() {
        #expect(Data(hexString: "00ff")! == Data([0, 255]))
        #expect(Data(hexString: "0") == nil)
        #expect(Data(hexString: "zz") == nil)
    }
}
