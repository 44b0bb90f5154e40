import SyncProtocol

/// The database behind the sync engine: runs bodies in transactions.
///
/// Storage implements it on PostgreSQL; SyncEngineTesting's `InMemorySyncStore` implements it in memory, and
/// one contract suite holds both to the same behaviour.
///
/// ```swift
/// let results = try store.transaction { tx in
///     try processor.process(batch, in: tx)
/// }
/// ```
public protocol SyncStore: Sendable {
    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws.
    ///
    /// - Throws: whatever `body` throws, or a store error (connection lost, serialization failure).
    func transaction<T: Sendable>(_ body: (any SyncTransaction) throws -> T) throws -> T
}

/// What ``SyncTransaction/lockDevice(_:readingOps:)`` reads with the device's lock.
public typealias DeviceLock = (device: DeviceState, stored: [OpLogEntry], latestSequence: Int64)

/// The operations the engine needs inside ONE database transaction, in the order it calls them.
///
/// A push makes at most six calls: ``lockDevice(_:readingOps:)``, ``conflicts(ids:)`` (only when
/// an op carries `resolves`), ``lockRecords(_:)``, ``finalizedAttachments(among:)``,
/// ``reserveSequence(count:)`` (only when something changed), and ``write(_:)``. Locks are
/// always taken in the order device row -> conflict entries -> records (sorted), so pushes,
/// server changes and workers never deadlock one another; pushes touching different records
/// and devices never wait for each other (docs/decisions/0004).
public protocol SyncTransaction {
    /// Locks the device's row (`SELECT … FOR UPDATE`, inserting it with high-water 0 when absent)
    /// and returns its high-water mark and every op log row of the device whose status is
    /// `deferred`, decoded from their `pending` bodies; then, read once the lock is held, the op
    /// log rows of the device among `opIds` (`WHERE device_id = $1 AND op_id = ANY($2)`), and the
    /// highest sequence number issued so far (committed or not; 0 before the first), which
    /// answers `newServerSeq` for a visit whose transaction numbers nothing itself.
    ///
    /// The lock serializes pushes (and deferred-op releases) of one device.
    func lockDevice(_ deviceId: String, readingOps opIds: [String]) throws -> DeviceLock

    /// Locks and returns the records that exist (tombstones included) among `keys`, which arrive
    /// sorted: `SELECT … WHERE (collection, record_id) IN (…) ORDER BY collection, record_id FOR UPDATE`.
    func lockRecords(_ keys: [RecordKey]) throws -> [StoredRecord]

    /// Up to `limit` keys, in any order, of live (not deleted) records of `collections` whose
    /// schema version is below `version`. Takes no lock: the caller locks them with
    /// ``lockRecords(_:)`` and decides on what it reads then.
    func records(belowSchemaVersion version: Int, in collections: [String], limit: Int) throws -> [RecordKey]

    /// How many live records of `collections` have a schema version below `version`.
    func countRecords(belowSchemaVersion version: Int, in collections: [String]) throws -> Int

    /// The finalized attachments named by `ids`, each with the record it was registered for
    /// (`dependsOn` is satisfied only by an attachment of the op's own record).
    func finalizedAttachments(among ids: [String]) throws -> Set<AttachmentRef>

    /// Locks and returns the conflict entries among `ids` (`FOR UPDATE`).
    func conflicts(ids: [String]) throws -> [StoredConflict]

    /// Reserves `count` (at least 1) new sequence numbers and returns them in ascending order.
    ///
    /// Called once, after every read: the records the numbers go to are locked by then, so each
    /// record's numbers grow change after change. Numbers are not tied to commit order (pulls
    /// order changes by their transaction first, docs/decisions/0004) and need not be consecutive.
    func reserveSequence(count: Int) throws -> [Int64]

    /// Sees the transaction's writes before ``reserveSequence(count:)``, with stand-in sequence
    /// numbers (``write(_:)`` then gets the same rows, in the same order, renumbered): a store can
    /// encode everything the numbers do not change ahead.
    func prepare(_ draft: WriteSet)

    /// Writes everything at once (one multi-row statement per list of the ``WriteSet``).
    ///
    /// Every op log row and record that exists already was read earlier in the transaction
    /// (``lockDevice(_:readingOps:)``, ``lockRecords(_:)``): a store may insert the others
    /// without looking, and fails the transaction when one exists after all.
    func write(_ writes: WriteSet) throws
}

extension SyncTransaction {
    /// Nothing to prepare by default.
    public func prepare(_ draft: WriteSet) {}
}
