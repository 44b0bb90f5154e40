public import Foundation

/// Files on disk that nothing uses any more (request spools, upload files of closed sessions,
/// blob files no attachment names): what the sweeps need from where attachment bytes are kept.
public protocol LeftoverFiles: Sendable {
    /// Removes the leftovers of every kind in bounded batches.
    /// - Parameter afterBatch: Called after each batch with the counts so far.
    /// - Returns: how many files of each kind were removed.
    func sweep(now: Date, afterBatch: (SweptFiles) throws -> Void) throws -> SweptFiles
}

/// How many files of each kind a sweep removed.
public struct SweptFiles: Sendable, Equatable, CustomStringConvertible {
    public var bodySpools = 0
    public var uploadFiles = 0
    public var partialBlobs = 0
    public var unreferencedBlobs = 0

    public init() {}

    /// The counts by name, as a job run records them.
    public var named: [String: Int] {
        ["bodySpools": bodySpools, "uploadFiles": uploadFiles, "partialBlobs": partialBlobs, "unreferencedBlobs": unreferencedBlobs]
    }

    public var total: Int { bodySpools + uploadFiles + partialBlobs + unreferencedBlobs }

    public var description: String {
        "\(bodySpools) body spools, \(uploadFiles) upload files, \(partialBlobs) partial blobs, \(unreferencedBlobs) unreferenced blobs"
    }
}
