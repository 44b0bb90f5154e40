import Cryptography
public import Foundation

/// Where a pull resumes, as the opaque signed string devices carry.
///
/// Encoded `base64url(JSON) "." base64url(HMAC-SHA256(JSON))`; see
/// docs/decisions/0003-sequence-and-cursors.md.
public struct PullCursor: Codable, Equatable, Sendable {
    /// Changes with a sequence number above this are still to be delivered.
    public var position: Int64
    /// For a cursor inside an initial sync: the sequence number at which it began
    /// (older tombstones and scope exits are not sent); nil once in delta mode.
    public var initialSyncStart: Int64?
    /// Seconds since 1970 when the cursor was issued.
    public var issuedAt: Int64

    public init(position: Int64, initialSyncStart: Int64?, issuedAt: Date) {
        self.position = position
        self.initialSyncStart = initialSyncStart
        self.issuedAt = Int64(issuedAt.timeIntervalSince1970)
    }

    enum CodingKeys: String, CodingKey {
        case position = "p"
        case initialSyncStart = "i"
        case issuedAt = "t"
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
        // Encoding three integers cannot fail.
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
            cursor.position >= 0
        else { throw .invalid }
        guard now.timeIntervalSince1970 - Double(cursor.issuedAt) <= maxAge else { throw .expired }
        return cursor
    }
}
