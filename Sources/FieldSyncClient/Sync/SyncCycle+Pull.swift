import Foundation
import SyncProtocol

extension SyncCycle {
    /// Pulls page after page from the stored cursor until `hasMore` is false; each page and
    /// its cursor commit together.
    ///
    /// A cursor the server no longer accepts (410 `CURSOR_EXPIRED`, or 400 `CURSOR_INVALID`)
    /// starts a full re-download from no cursor; the outbox is not touched.
    func pull(from cursor: String?, limit: Int) async throws(Stop) {
        var cursor = cursor
        var restarted = false
        while true {
            let page: PullResponse
            do {
                page = try await api.pull(cursor: cursor, limit: limit, token: token)
            } catch let failure where cursor != nil && !restarted && [.cursorExpired, .cursorInvalid].contains(failure.code) {
                restarted = true
                cursor = nil
                try await local { try await store.beginResync() }
                continue
            } catch {
                throw await stopping(error)
            }
            try await local { try await store.applyPullPage(page, syncedAt: clock.now()) }
            status.update { $0.minSupportedAppVersion = page.minSupportedAppVersion }
            guard page.hasMore else { return }
            cursor = page.nextCursor
        }
    }
}
