public import Foundation

/// A photo added on the device, its local copy and how far its upload got.
public struct LocalPhoto: Sendable, Hashable {
    /// Where the photo stands.
    public enum State: String, Sendable, Hashable {
        /// Waiting for (or in the middle of) its upload.
        case queued
        /// Stored and verified by the server.
        case uploaded
        /// The server refused it for good (too large, or damaged on the device); see `problem`.
        case failed
    }

    /// The attachment id: the value to put in a record's photo field.
    public let id: String
    public let collection: String
    public let recordId: String
    public let contentType: String
    public let byteCount: Int64
    /// SHA-256 of the content, lower-case hex.
    public let sha256: String
    public let state: State
    /// Why the last upload attempt failed, in words for the user; nil when none did.
    public let problem: String?
    /// The device's own copy of the photo (app-private storage, kept until local retention).
    public let file: URL
}
