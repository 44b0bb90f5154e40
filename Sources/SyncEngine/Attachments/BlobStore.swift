public import Foundation

/// Content-addressed storage of finished attachment bytes: one blob per SHA-256.
///
/// Blobs are named only by a digest the store itself verified, never by anything a client
/// chose, and they never change once stored.
///
/// ```swift
/// let outcome = try blobs.put(assembledFile, sha256: declared)   // verifies, then moves it in
/// if let blob = try blobs.open(declared) { … Response.file(blob.url, range: …) … }
/// ```
public protocol BlobStore: Sendable {
    /// Moves the finished file at `file` into the store as the blob `sha256`, after checking
    /// that its bytes hash to `sha256`. Durable when it returns. When the blob already exists
    /// the file is deleted instead and `.alreadyStored` is returned.
    /// - Throws: `BlobStoreError.checksumMismatch` (the file is left where it was),
    ///   `.invalidDigest`, or a `POSIXError`.
    func put(_ file: URL, sha256: String) throws -> BlobPutOutcome

    /// The blob's file and size for reading (whole or by range); nil when absent.
    func open(_ sha256: String) throws -> BlobFile?

    /// Whether the blob is stored.
    func exists(_ sha256: String) throws -> Bool

    /// Deletes the blob; returns whether it existed.
    @discardableResult
    func delete(_ sha256: String) throws -> Bool
}

/// What `BlobStore.put` did.
public enum BlobPutOutcome: Sendable, Equatable {
    case stored
    /// The same bytes were stored before (content addressing made the upload a duplicate).
    case alreadyStored
}

/// A stored blob as a readable file.
public struct BlobFile: Sendable, Equatable {
    public let url: URL
    public let size: Int64

    public init(url: URL, size: Int64) {
        self.url = url
        self.size = size
    }
}

public enum BlobStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's bytes hash to `actual`, not to the requested name.
    case checksumMismatch(actual: String)
    /// The name is not a lowercase hex SHA-256.
    case invalidDigest

    public var description: String {
        switch self {
        case .checksumMismatch: "the file does not match its SHA-256"
        case .invalidDigest: "a blob name must be a lowercase hex SHA-256"
        }
    }
}
