import Foundation
public import SyncProtocol
import Synchronization

extension SyncClient {
    /// Signs in with `POST /v1/auth/token` and fetches the server's limits. After a 401 this
    /// is how the app resumes: the queue was kept and syncs under the new session.
    ///
    /// A different user may sign in only when the previous one left nothing unsynced; the
    /// previous user's local records are then removed.
    /// - Returns: the user.
    /// - Throws: ``SyncClientError/invalidCredentials``, ``SyncClientError/signInFailed(_:)``
    ///   (network, suspension), ``SyncClientError/anotherUsersWorkPending(count:)``.
    @discardableResult
    public func signIn(username: String, password: String) async throws -> UserInfo {
        try await signIn(username: username, password: password, mayRenewIdentity: true)
    }

    private func signIn(username: String, password: String, mayRenewIdentity: Bool) async throws -> UserInfo {
        let request = TokenRequest(
            username: username, password: password, deviceId: deviceId, platform: configuration.platform,
            appVersion: configuration.appVersion)
        let response: TokenResponse
        do {
            response = try await api.token(request)
        } catch let failure where failure.status == 401 {
            throw SyncClientError.invalidCredentials
        } catch let failure where failure.code == .deviceIdTaken && mayRenewIdentity {
            try await renewIdentity()
            return try await signIn(username: username, password: password, mayRenewIdentity: false)
        } catch {
            throw SyncClientError.signInFailed(error.code == .accountSuspended ? "this account is suspended" : error.description)
        }
        try await forgetPreviousUser(unless: response.user)
        let config = try? await api.config(token: response.token)
        try await store.signedIn(
            token: response.token, user: response.user, limits: config.map(ServerLimits.init), minSupported: config?.minSupportedAppVersion,
            at: clock.now())
        failures.withLock { $0 = 0 }
        try await refreshStatus()
        signals.signal(.manual)
        return response.user
    }

    /// Signs out: revokes the token (when the server can be reached) and removes the user's
    /// local data, keeping the device's identity.
    ///
    /// Refused while anything has not reached the server. With `discardingUnsyncedWork` the
    /// sign-out goes ahead and returns exactly what was thrown away, for the app to show.
    /// - Throws: ``SyncClientError/unsyncedWork(changes:photos:)`` with the counts.
    @discardableResult
    public func signOut(discardingUnsyncedWork: Bool = false) async throws -> DiscardedWork {
        await cycles.acquire()
        do {
            let work = try await store.unsyncedWork()
            guard work.isEmpty || discardingUnsyncedWork else {
                throw SyncClientError.unsyncedWork(changes: work.changes.count, photos: work.photos.count)
            }
            if let token = try await store.device().token {
                // Best effort: offline, the token simply expires on the server.
                try? await api.revoke(token: token)
            }
            // Unsent ops leave a gap in the clientSeqs the server expects: start over as a new device.
            let newIdentity = try await store.facts().pendingChanges > 0 ? "dev-" + UUID().uuidString.lowercased() : nil
            try await store.wipeUserData(newDeviceId: newIdentity)
            if let newIdentity { adopt(deviceId: newIdentity) }
            try await refreshStatus()
            await cycles.release()
            return work
        } catch {
            await cycles.release()
            throw error
        }
    }

    /// The server says another user owns this device id (the first to sign in with it): a
    /// different user is signing in. When nothing of the previous user's is left to sync, the
    /// device starts over under a new id, which the new user then owns.
    private func renewIdentity() async throws {
        let work = try await store.unsyncedWork()
        guard work.isEmpty else { throw SyncClientError.anotherUsersWorkPending(count: work.changes.count + work.photos.count) }
        let newIdentity = "dev-" + UUID().uuidString.lowercased()
        try await store.wipeUserData(newDeviceId: newIdentity)
        adopt(deviceId: newIdentity)
    }

    /// A new user on this device: the previous one's records go, which is only allowed when
    /// nothing of theirs is left to sync.
    private func forgetPreviousUser(unless user: UserInfo) async throws {
        guard let previous = try await store.device().user, previous.id != user.id else { return }
        let work = try await store.unsyncedWork()
        guard work.isEmpty else { throw SyncClientError.anotherUsersWorkPending(count: work.changes.count + work.photos.count) }
        try await store.wipeUserData(newDeviceId: nil)
    }
}
