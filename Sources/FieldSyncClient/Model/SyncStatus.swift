public import Foundation

/// What the sync indicator shows: one headline state and the counts behind it.
///
/// `description` is the wording for the user ("Waiting for network. 3 pending",
/// "All changes synced"); apps may build their own from the fields.
///
/// ```swift
/// for await status in client.statusUpdates() {
///     indicator.text = status.description
/// }
/// ```
public struct SyncStatus: Sendable, Equatable, CustomStringConvertible {
    /// The headline.
    public enum State: Sendable, Equatable {
        /// The app reported no network; work is saved and waits.
        case offline
        /// The last attempt failed (no network, server busy); the next one is at `retryAt`.
        case waitingForNetwork(retryAt: Date)
        /// A sync is running.
        case syncing(SyncProgress)
        /// Changes are saved on the device and will sync shortly.
        case pending
        /// Nothing is pending; `at` is when the device last finished a sync (nil: never).
        case synced(at: Date?)
        /// The user must act.
        case needsAttention(Attention)
    }

    /// Why the user must act.
    public enum Attention: Sendable, Equatable {
        /// Edits in conflict or rejected, or photos the server refused: see `SyncClient.issues()`.
        case issues(Int)
        /// The server refuses this app version (426); nothing syncs until the app is updated.
        case updateRequired(minimumVersion: String?)
        /// The session ended (401); the queue is kept for after the next sign-in.
        case signInRequired
        /// The account is suspended (403).
        case accountSuspended
        /// Automatic retries stopped after this many failed attempts in a row; a manual sync
        /// or the network coming back tries again.
        case retriesExhausted(attempts: Int, lastError: String)
    }

    public var state: State
    /// Edits not yet acknowledged by the server.
    public var pendingChanges: Int
    /// Photos not yet uploaded.
    public var pendingPhotos: Int
    /// Issues waiting for the user.
    public var issueCount: Int
    public var lastSyncedAt: Date?
    /// False once the server's `minSupportedAppVersion` is above this app: it may no longer
    /// create records, but everything queued still uploads.
    public var canCreateRecords: Bool
    public var minSupportedAppVersion: String?

    /// Everything still to upload.
    public var pending: Int { pendingChanges + pendingPhotos }

    public var description: String {
        switch state {
        case .offline, .waitingForNetwork: pending == 0 ? "Waiting for network" : "Waiting for network. \(pending) pending"
        case .syncing(let progress): progress.description
        case .pending: pending == 1 ? "1 change pending" : "\(pending) changes pending"
        case .synced(let at): at == nil ? "Not synced yet" : "All changes synced"
        case .needsAttention(let attention): attention.sentence(pending: pending)
        }
    }
}

extension SyncStatus.Attention {
    func sentence(pending: Int) -> String {
        let kept = pending == 0 ? "" : " Your \(pending) pending \(pending == 1 ? "change is" : "changes are") kept."
        switch self {
        case .issues(let count): return count == 1 ? "1 change needs your review" : "\(count) changes need your review"
        case .updateRequired(let minimum): return "Update required to sync" + (minimum.map { " (version \($0) or later)" } ?? "") + "." + kept
        case .signInRequired: return "Sign in again to sync." + kept
        case .accountSuspended: return "This account is suspended. Contact your office." + kept
        case .retriesExhausted(let attempts, _): return "Sync stopped after \(attempts) failed attempts. Try again." + kept
        }
    }
}

/// How far a running sync got.
public struct SyncProgress: Sendable, Equatable, CustomStringConvertible {
    public var changesSent: Int
    public var changesTotal: Int
    public var bytesSent: Int64
    public var bytesTotal: Int64

    public init(changesSent: Int = 0, changesTotal: Int = 0, bytesSent: Int64 = 0, bytesTotal: Int64 = 0) {
        self.changesSent = changesSent
        self.changesTotal = changesTotal
        self.bytesSent = bytesSent
        self.bytesTotal = bytesTotal
    }

    public var description: String {
        var text = changesTotal == 0 ? "Syncing…" : "Syncing \(changesTotal) \(changesTotal == 1 ? "change" : "changes")…"
        if bytesTotal > 0 {
            let megabytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_048_576) }
            text += " (\(megabytes(bytesSent)) of \(megabytes(bytesTotal)) MB)"
        }
        return text
    }
}
