public import Foundation
public import SyncEngine
import Synchronization

/// A `WebSessionStore` in memory, held to `PostgresWebSessionStore`'s behaviour by the sessions
/// contract suite.
public final class InMemoryWebSessionStore: WebSessionStore {
    private struct Session {
        var record: WebSessionRecord
        var lastSeenAt: Date

        func isLive(now: Date, idleCutoff: Date) -> Bool { record.expiresAt > now && lastSeenAt > idleCutoff }
    }

    private let sessions = Mutex<[String: Session]>([:])

    public init() {}

    public func create(userId: String, now: Date, expiresAt: Date) throws -> String {
        let id = UUID().uuidString
        sessions.withLock { $0[id] = Session(record: WebSessionRecord(userId: userId, createdAt: now, expiresAt: expiresAt), lastSeenAt: now) }
        return id
    }

    public func touch(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord? {
        sessions.withLock { sessions in
            guard let session = sessions[id], session.isLive(now: now, idleCutoff: idleCutoff) else { return nil }
            sessions[id]?.lastSeenAt = now
            return session.record
        }
    }

    public func find(id: String, now: Date, idleCutoff: Date) throws -> WebSessionRecord? {
        sessions.withLock { $0[id].flatMap { $0.isLive(now: now, idleCutoff: idleCutoff) ? $0.record : nil } }
    }

    public func delete(id: String) throws {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    @discardableResult
    public func deleteAll(userId: String) throws -> Int {
        remove { $0.record.userId == userId }
    }

    @discardableResult
    public func purgeExpired(now: Date, idleCutoff: Date) throws -> Int {
        remove { !$0.isLive(now: now, idleCutoff: idleCutoff) }
    }

    private func remove(where predicate: (Session) -> Bool) -> Int {
        sessions.withLock { sessions in
            let gone = sessions.filter { predicate($0.value) }.keys
            for id in gone { sessions[id] = nil }
            return gone.count
        }
    }
}
