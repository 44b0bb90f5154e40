import Cryptography
public import Foundation

/// Where a pull resumes, as the opaque signed string devices carry.
///
/// Encoded `base64url(JSON) "." base64url(HMAC-SHA256(JSON))`; see
/// docs/decisions/0003-sequence-and-cursors.md and 0004-concurrent-writers.md. A cursor issued
/// before positions carried a transaction id has no `x` (nor `j`): its transaction is 0, the
/// one every change written before the scheme has, so it resumes exactly where it stood.
public struct PullCursor: Codable, Equatable, Sendable {
    /// Changes after this position are still to be delivered.
    public var position: PullPosition
    /// For a cursor inside an initial sync: the position at which it began (older tombstones
    /// and scope exits are not sent); nil once in delta mode.
    public var initialSyncStart: PullPosition?
    /// Seconds since 1970 when the cursor was issued.
    public var issuedAt: Int64

    public init(position: PullPosition, initialSyncStart: PullPosition?, issuedAt: Date) {
        self.position = position
        self.initialSyncStart = initialSyncStart
        self.issuedAt = Int64(issuedAt.timeIntervalSince1970)
    }

    enum CodingKeys: String, CodingKey {
        case seq = "p"
        case xid = "x"
        case startSeq = "i"
        case startXid = "j"
        case issuedAt = "t"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        position = PullPosition(
            xid: try container.decodeIfPresent(Int64.self, forKey: .xid) ?? 0, seq: try container.decode(Int64.self, forKey: .seq))
        initialSyncStart = try container.decodeIfPresent(Int64.self, forKey: .startSeq).map { seq in
            PullPosition(xid: try container.decodeIfPresent(Int64.self, forKey: .startXid) ?? 0, seq: seq)
        }
        issuedAt = try container.decode(Int64.self, forKey: .issuedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position.seq, forKey: .seq)
        try container.encode(position.xid, forKey: .xid)
        try container.encodeIfPresent(initialSyncStart?.seq, forKey: .startSeq)
        try container.encodeIfPresent(initialSyncStart?.xid, forKey: .startXid)
        try container.encode(issuedAt, forKey: .issuedAt)
    }

    /// Whether every number in it is one this server could have issued.
    var isWellFormed: Bool {
        [position.xid, position.seq, initialSyncStart?.xid ?? 0, initialSyncStart?.seq ?? 0].allSatisfy { $0 >= 0 }
    }
}

/// Signs and verifies pull cursors.
public struct PullCursorCodec: Sendable {
    public enum Failure: Error, Equatable {
        /// Not a cursor this server issued (tampered, truncated, foreign).
        case invalid
        /// Issued longer ago than `maxAge`.
        case expired
    }

    private let key: Data
    /// Cursors older than this are refused (30 days).
    public let maxAge: TimeInterval

    public init(key: Data, maxAge: TimeInterval = 30 * 86_400) {
        self.key = key
        self.maxAge = maxAge
    }

    public func encode(_ cursor: PullCursor) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding a few integers cannot fail.
        let body = (try? encoder.encode(cursor)) ?? Data()
        return body.base64URLEncodedString() + "." + HMAC.sha256(key: key, message: body).base64URLEncodedString()
    }

    /// - Throws: `Failure.invalid` or `Failure.expired`.
    public func decode(_ text: String, now: Date = Date()) throws(Failure) -> PullCursor {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 512, parts.count == 2,
            let body = Data(base64URLEncoded: String(parts[0])),
            let mac = Data(base64URLEncoded: String(parts[1])),
            HMAC.verify(mac, key: key, message: body),
            let cursor = try? JSONDecoder().decode(PullCursor.self, from: body),
            cursor.isWellFormed
        else { throw .invalid }
        guard now.timeIntervalSince1970 - Double(cursor.issuedAt) <= maxAge else { throw .expired }
        return cursor
    }
}
