import Cryptography
import Foundation
import SyncEngine
import Testing

@Suite("Pull cursors (PROTOCOL.md, Pull: signed opaque cursor)")
struct PullCursorTests {
    let codec = PullCursorCodec(key: Data(repeating: 7, count: 32))

    @Test("A cursor round-trips through its signed text")
    func roundTrip() throws {
        let cursor = PullCursor(
            position: PullPosition(xid: 912, seq: 20_716), initialSyncStart: PullPosition(xid: 913, seq: 0), issuedAt: Date())
        #expect(try codec.decode(codec.encode(cursor)) == cursor)
    }

    @Test("A tampered cursor is CURSOR_INVALID")
    func tampered() throws {
        let text = codec.encode(PullCursor(position: PullPosition(xid: 0, seq: 5), initialSyncStart: nil, issuedAt: Date()))
        let forged = PullCursor(position: PullPosition(xid: 0, seq: 0), initialSyncStart: nil, issuedAt: Date())
        let forgedBody = try JSONEncoder().encode(forged).base64URLEncodedString()
        let signature = text.split(separator: ".")[1]
        for candidate in ["\(forgedBody).\(signature)", String(text.dropLast()), "garbage", "", text + "."] {
            #expect(throws: PullCursorCodec.Failure.invalid) { try codec.decode(candidate) }
        }
        let otherKey = PullCursorCodec(key: Data(repeating: 8, count: 32))
        #expect(throws: PullCursorCodec.Failure.invalid) { try otherKey.decode(text) }
    }

    @Test("A cursor issued more than 30 days ago is CURSOR_EXPIRED")
    func expired() throws {
        let issued = Date(timeIntervalSinceNow: -31 * 86_400)
        let text = codec.encode(PullCursor(position: PullPosition(xid: 0, seq: 5), initialSyncStart: nil, issuedAt: issued))
        #expect(throws: PullCursorCodec.Failure.expired) { try codec.decode(text) }
        let fresh = codec.encode(
            PullCursor(position: PullPosition(xid: 0, seq: 5), initialSyncStart: nil, issuedAt: Date(timeIntervalSinceNow: -29 * 86_400)))
        #expect(try codec.decode(fresh).position == PullPosition(xid: 0, seq: 5))
    }

    @Test("A cursor issued before positions carried a transaction resumes at transaction 0, where every older change sits")
    func legacyCursor() throws {
        let issued = Int64(Date().timeIntervalSince1970)
        let body = Data(#"{"i":20000,"p":20716,"t":\#(issued)}"#.utf8)
        let text = body.base64URLEncodedString() + "." + HMAC.sha256(key: Data(repeating: 7, count: 32), message: body).base64URLEncodedString()
        let cursor = try codec.decode(text)
        #expect(cursor.position == PullPosition(xid: 0, seq: 20_716))
        #expect(cursor.initialSyncStart == PullPosition(xid: 0, seq: 20_000))
    }

    @Test("A cursor with a negative transaction is CURSOR_INVALID")
    func negativeTransaction() throws {
        let text = codec.encode(PullCursor(position: PullPosition(xid: -1, seq: 5), initialSyncStart: nil, issuedAt: Date()))
        #expect(throws: PullCursorCodec.Failure.invalid) { try codec.decode(text) }
    }
}
