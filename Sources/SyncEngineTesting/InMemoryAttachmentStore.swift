import Foundation
public import SyncEngine
import SyncProtocol

/// An `AttachmentStore` in memory, held to `PostgresAttachmentStore`'s behaviour by the upload
/// sessions contract suite. Transactions run one at a time on a copy of the state, each with one
/// clock reading (as PostgreSQL's `now()` is fixed per transaction); record scopes come from
/// `records` when given.
public final class InMemoryAttachmentStore: AttachmentStore, @unchecked Sendable {
    struct Row {
        var session: UploadSession
        var createdAt: Date
    }

    struct State {
        var rows: [UUID: Row] = [:]
        var chunks: [UUID: [Int: StoredChunk]] = [:]
        var blobs: [String: Int64] = [:]
        var events: [PendingEvent] = []
    }

    /// Serializes transactions, which covers every lock the port names.
    private let gate = NSLock()
    private var committed = State()
    private let records: InMemorySyncStore?

    public init(records: InMemorySyncStore? = nil) {
        self.records = records
    }

    /// The events committed transactions published, oldest first.
    public var events: [PendingEvent] { gate.withLock { committed.events } }

    public func transaction<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T {
        try gate.withLock {
            let transaction = InMemoryAttachmentTransaction(state: committed, records: records)
            let value = try body(transaction)
            committed = transaction.state
            return value
        }
    }

    public func read<T>(_ body: (any AttachmentTransaction) throws -> T) throws -> T {
        try gate.withLock { try body(InMemoryAttachmentTransaction(state: committed, records: records)) }
    }
}

/// One in-memory attachment transaction on its own copy of the state.
final class InMemoryAttachmentTransaction: AttachmentTransaction {
    var state: InMemoryAttachmentStore.State
    private let records: InMemorySyncStore?
    private let now = Date()

    init(state: InMemoryAttachmentStore.State, records: InMemorySyncStore?) {
        self.state = state
        self.records = records
    }

    func lockDevice(_ deviceId: String) throws {}

    func lockRecord(collection: String, recordId: String) throws {}

    func lockBlob(_ sha256: String) throws {}

    func session(deviceId: String, attId: String, lock: SessionLock?) throws -> UploadSession? {
        state.rows.values.first { $0.session.deviceId == deviceId && $0.session.attId == attId }.map { observed($0.session) }
    }

    func insert(
        _ declaration: UploadDeclaration, deviceId: String, userId: String, completeWith blob: String?, hours: Int
    ) throws
        -> UploadSession
    {
        let session = UploadSession(
            id: UUID(), deviceId: deviceId, userId: userId, declaration: declaration, status: blob == nil ? .uploading : .complete,
            blobSHA256: blob, expiresAt: blob == nil ? expiry(hours) : nil, isExpired: false)
        state.rows[session.id] = InMemoryAttachmentStore.Row(session: session, createdAt: now)
        return observed(session)
    }

    func touch(_ session: UUID, hours: Int) throws -> UploadSession? {
        guard let row = state.rows[session], row.session.status == .uploading else { return nil }
        return update(session) { $0.with(expiresAt: expiry(hours)) }
    }

    func delete(_ session: UUID) throws {
        state.rows[session] = nil
        state.chunks[session] = nil
    }

    func deleteExpired(limit: Int) throws -> [UUID] {
        let expired = state.rows.values.map(\.session).filter { observed($0).isExpired }
            .sorted { ($0.expiresAt ?? now) < ($1.expiresAt ?? now) }.prefix(limit).map(\.id)
        for id in expired { try delete(id) }
        return expired
    }

    func openSessionCount(deviceId: String) throws -> Int {
        state.rows.values.filter { $0.session.deviceId == deviceId && isOpen($0.session) }.count
    }

    func openSessionCount(userId: String) throws -> Int {
        state.rows.values.filter { $0.session.userId == userId && isOpen($0.session) }.count
    }

    func recordBytes(collection: String, recordId: String, excluding deviceId: String, attId: String) throws -> Int64 {
        state.rows.values.map(\.session)
            .filter { $0.declaration.collection == collection && $0.declaration.recordId == recordId }
            .filter { ($0.status == .complete || isOpen($0)) && !($0.deviceId == deviceId && $0.attId == attId) }
            .reduce(0) { $0 + $1.declaration.totalBytes }
    }

    func recordScope(collection: String, recordId: String) throws -> [ScopeKey]? {
        records?.state.record(collection, recordId)?.scopeKeys
    }

    func chunks(of session: UUID) throws -> [StoredChunk] {
        (state.chunks[session] ?? [:]).values.sorted { $0.index < $1.index }
    }

    func recordChunk(_ index: Int, of session: UUID, sha256: String, size: Int, hours: Int) throws {
        state.chunks[session, default: [:]][index] = StoredChunk(index: index, sha256: sha256)
        _ = update(session) { $0.with(expiresAt: expiry(hours)) }
    }

    func forgetChunks(_ indexes: [Int], of session: UUID) throws {
        for index in indexes { state.chunks[session]?[index] = nil }
    }

    func blobSize(_ sha256: String) throws -> Int64? { state.blobs[sha256] }

    func recordBlob(_ sha256: String, size: Int64, contentType: String) throws {
        if state.blobs[sha256] == nil { state.blobs[sha256] = size }
    }

    func complete(_ session: UUID, blob sha256: String) throws -> UploadSession {
        state.chunks[session] = nil
        guard let completed = update(session, { $0.completed(with: sha256) }) else { throw MissingSession(id: session) }
        return completed
    }

    func attachments(named attId: String, of record: RecordKey?, preferring deviceId: String) throws -> [(UploadSession, [ScopeKey]?)] {
        let named = state.rows.values.filter { row in
            row.session.attId == attId
                && record.map { $0.collection == row.session.declaration.collection && $0.recordId == row.session.declaration.recordId } ?? true
        }
        return try withScopes(ordered(named) { $0.session.deviceId == deviceId })
    }

    func attachments(holding sha256: String, userId: String, visible: [ScopeKey]?, limit: Int) throws -> [(UploadSession, [ScopeKey]?)] {
        let holding = try state.rows.values.filter { $0.session.status == .complete && $0.session.blobSHA256 == sha256 }.filter { row in
            guard row.session.userId != userId, let visible else { return true }
            let scope = try recordScope(collection: row.session.declaration.collection, recordId: row.session.declaration.recordId)
            return scope.map { !Set($0).isDisjoint(with: visible) } ?? false
        }
        return try withScopes(Array(ordered(holding) { $0.session.userId == userId }.prefix(limit)))
    }

    /// `rows` as PostgreSQL orders them: the preferred first, then by age, then by id; at most 20.
    private func ordered(_ rows: [InMemoryAttachmentStore.Row], preferring: (InMemoryAttachmentStore.Row) -> Bool) -> [InMemoryAttachmentStore.Row] {
        let sorted = rows.sorted {
            (preferring($0) ? 0 : 1, $0.createdAt, $0.session.id.uuidString) < (preferring($1) ? 0 : 1, $1.createdAt, $1.session.id.uuidString)
        }
        return Array(sorted.prefix(20))
    }

    private func withScopes(_ rows: [InMemoryAttachmentStore.Row]) throws -> [(UploadSession, [ScopeKey]?)] {
        try rows.map {
            (observed($0.session), try recordScope(collection: $0.session.declaration.collection, recordId: $0.session.declaration.recordId))
        }
    }

    func publish(_ events: [PendingEvent]) throws { state.events += events }

    func commitWithoutFlush() throws {}

    struct MissingSession: Error {
        let id: UUID
    }

    /// The session as this transaction's clock sees it.
    private func observed(_ session: UploadSession) -> UploadSession {
        session.with(expiresAt: session.expiresAt, expired: session.status == .uploading && (session.expiresAt ?? now) <= now)
    }

    private func isOpen(_ session: UploadSession) -> Bool {
        session.status == .uploading && (session.expiresAt ?? now) > now
    }

    private func expiry(_ hours: Int) -> Date { now.addingTimeInterval(TimeInterval(hours) * 3600) }

    private func update(_ id: UUID, _ change: (UploadSession) -> UploadSession) -> UploadSession? {
        guard let row = state.rows[id] else { return nil }
        state.rows[id]?.session = change(row.session)
        return observed(change(row.session))
    }
}

extension UploadSession {
    fileprivate func with(expiresAt: Date?, expired: Bool = false) -> UploadSession {
        UploadSession(
            id: id, deviceId: deviceId, userId: userId, declaration: declaration, status: status, blobSHA256: blobSHA256, expiresAt: expiresAt,
            isExpired: expired)
    }

    fileprivate func completed(with blob: String) -> UploadSession {
        UploadSession(
            id: id, deviceId: deviceId, userId: userId, declaration: declaration, status: .complete, blobSHA256: blob, expiresAt: nil,
            isExpired: false)
    }
}
