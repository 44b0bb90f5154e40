/// Why a ``SyncClient`` call was refused. `description` is a sentence for the user.
public enum SyncClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call needs a signed-in user.
    case notSignedIn
    /// Wrong username or password.
    case invalidCredentials
    /// The server could not be reached or refused the sign-in; the reason in words.
    case signInFailed(String)
    /// Another user's edits are still on this device; they must sync (or be discarded) first.
    case anotherUsersWorkPending(count: Int)
    /// The server's `minSupportedAppVersion` is above this app: no new records.
    case updateRequiredToCreate(minimumVersion: String)
    /// Ids are 1-128 characters of `A-Z a-z 0-9 . _ : -`.
    case invalidIdentifier(String)
    case recordExists(collection: String, id: String)
    case recordNotFound(collection: String, id: String)
    /// One edit's JSON exceeds what a push may carry.
    case editTooLarge(bytes: Int, limit: Int)
    /// A photo over the server's size limit, stated at capture time.
    case photoTooLarge(bytes: Int64, limit: Int64)
    /// The photo file cannot be read.
    case photoUnreadable(String)
    /// Work that has not reached the server would be lost by signing out.
    case unsyncedWork(changes: Int, photos: Int)
    /// The issue is no longer open (resolved already, or its record was signed out).
    case issueNotFound(String)
    /// The photo cannot be given up: a queued edit still waits for it.
    case photoStillNeeded(String)

    public var description: String {
        switch self {
        case .notSignedIn: "Sign in first."
        case .invalidCredentials: "Wrong username or password."
        case .signInFailed(let reason): "Could not sign in: \(reason)."
        case .anotherUsersWorkPending(let count): "\(count) changes of the previous user are not synced yet. Sign in as that user to sync them first."
        case .updateRequiredToCreate(let minimum): "Update required to create new records (version \(minimum) or later)."
        case .invalidIdentifier(let id): "\"\(id)\" is not a valid id (1-128 characters of A-Z a-z 0-9 . _ : -)."
        case .recordExists(let collection, let id): "\(collection)/\(id) already exists."
        case .recordNotFound(let collection, let id): "\(collection)/\(id) is not on this device."
        case .editTooLarge(let bytes, let limit): "This edit is too large to sync (\(bytes) bytes; the limit is \(limit))."
        case .photoTooLarge(let bytes, let limit): "This photo is too large (\(bytes / 1_048_576) MB; the limit is \(limit / 1_048_576) MB)."
        case .photoUnreadable(let reason): "The photo cannot be read: \(reason)."
        case .unsyncedWork(let changes, let photos):
            "\(Self.count(changes + photos)) not synced yet. Sync before signing out, or sign out anyway and lose them."
        case .issueNotFound(let id): "The issue \(id) is not open."
        case .photoStillNeeded(let id): "The photo \(id) is still needed by a change waiting to sync."
        }
    }

    private static func count(_ n: Int) -> String { n == 1 ? "1 item is" : "\(n) items are" }
}
