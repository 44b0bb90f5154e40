import Foundation
import SQLite
public import SyncProtocol
import Synchronization

/// The FieldSync device SDK: a local SQLite store the app reads and writes offline, an
/// outbox that survives crashes, resumable photo uploads, and a sync loop that pushes,
/// uploads and pulls whenever it can, backing off when it cannot.
///
/// Every edit is saved with its op and the next `clientSeq` in one SQLite transaction; the
/// server applies each op exactly once however often it is sent. Reads show the last pulled
/// state with the device's own pending edits on top.
///
/// ```swift
/// let client = try SyncClient(configuration: .init(serverURL: server, databasePath: path, appVersion: "2.3.0"))
/// try await client.signIn(username: "ana", password: password)
/// try await client.create("jobs", id: "job-4471", ["title": "Boiler service", "status": "in_progress"])
/// let photo = try await client.addPhoto(at: capturedFile, to: "part_usage", recordId: "pu-9920")
/// try await client.create("part_usage", id: "pu-9920", ["job_id": "job-4471", "sku": "CAP-47", "qty": 2, "photo": .string(photo.id)])
/// let loop = Task { await client.run() }      // syncs now, on every change, and when the network returns
/// for await status in client.statusUpdates() { print(status) }   // "Waiting for network. 2 pending"
/// ```
///
/// Instances share nothing: a simulator may run many in one process, each with its own
/// database file, transport, clock and sleep.
public final class SyncClient: Sendable {
    /// What the client was opened with.
    public let configuration: Configuration
    /// This installation's id, made with its database and sent as `X-Device-Id`. It changes only
    /// when a forced sign-out threw away edits the server may never have received: their
    /// clientSeqs can never arrive, so the device starts over under a new id.
    public var deviceId: String { identity.withLock { $0 } }

    let store: LocalStore
    private let identity: Mutex<String>
    let clock: ServerClock
    let statusCenter = StatusCenter()
    let signals = LoopSignals()
    /// One sync cycle (or sign-out) at a time.
    let cycles = TurnGate(width: 1)
    /// Failed cycles in a row (for backoff and the retry ceiling).
    let failures = Mutex(0)

    /// Opens (or creates) the device database and readies the client; nothing is sent yet.
    /// - Throws: `SQLiteError` when the database cannot be opened or was written by a newer SDK.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        store = try LocalStore(path: configuration.databasePath)
        let (device, facts) = try store.queue.read { db in (try LocalStore.device(db), try LocalStore.facts(db)) }
        identity = Mutex(device.deviceId)
        clock = ServerClock(deviceNow: configuration.now, offset: device.clockOffset)
        statusCenter.update { Self.describe(device, facts, appVersion: configuration.appVersion, into: &$0) }
    }

    /// The server endpoints, speaking for the current device id.
    var api: ServerAPI {
        ServerAPI(
            baseURL: configuration.serverURL, transport: configuration.transport, deviceId: deviceId, appVersion: configuration.appVersion,
            clock: clock, compactFieldMeta: configuration.compactFieldMeta)
    }

    /// Takes a new device id (after a sign-out that discarded unsent edits).
    func adopt(deviceId: String) { identity.withLock { $0 = deviceId } }

    /// Closes the database; the client must not be used afterwards.
    public func close() throws {
        statusCenter.finishAll()
        try store.close()
    }

    // MARK: - Status

    /// The sync indicator's current state.
    public var status: SyncStatus { statusCenter.current }

    /// The current status, then each change, for as long as the caller listens.
    public func statusUpdates() -> AsyncStream<SyncStatus> { statusCenter.updates() }

    /// The signed-in user, if any (also while the session waits for a new sign-in).
    public func user() async throws -> UserInfo? { try await store.device().user }

    /// Re-reads what the status is computed from.
    func refreshStatus() async throws {
        let (device, facts) = try await store.queue.read { db in (try LocalStore.device(db), try LocalStore.facts(db)) }
        statusCenter.update { Self.describe(device, facts, appVersion: configuration.appVersion, into: &$0) }
    }

    private static func describe(_ device: DeviceRow, _ facts: StoreFacts, appVersion: String, into inputs: inout StatusCenter.Inputs) {
        inputs.facts = facts
        inputs.session = device.session
        inputs.upgradeRequired = device.upgradeRequired(for: appVersion)
        inputs.upgradeMinimum = device.upgradeMinimum
        inputs.canCreate = device.mayCreate(appVersion: appVersion)
        inputs.minSupportedAppVersion = device.minSupportedAppVersion
        inputs.lastSyncedAt = device.lastSyncedAt
    }

    // MARK: - Records

    /// Creates a record on the device; it syncs later. Fields missing from `fields` stay unset.
    /// - Returns: the record as it now shows.
    /// - Throws: ``SyncClientError/updateRequiredToCreate(minimumVersion:)`` once the server's
    ///   `minSupportedAppVersion` is above this app; `.recordExists`, `.invalidIdentifier`,
    ///   `.notSignedIn`, `.editTooLarge`.
    @discardableResult
    public func create(_ collection: String, id: String, _ fields: [String: JSONValue]) async throws -> LocalRecord {
        guard let record = try await save(Edit(type: .create, collection: collection, recordId: id, values: fields)) else {
            throw SyncClientError.recordNotFound(collection: collection, id: id)
        }
        return record
    }

    /// Changes some fields of a record; unchanged values are not sent. Allowed below
    /// `minSupportedAppVersion` (only creating is not).
    /// - Returns: the record as it now shows.
    /// - Throws: `.recordNotFound` when the device does not show the record; as `create`.
    @discardableResult
    public func update(_ collection: String, id: String, _ fields: [String: JSONValue]) async throws -> LocalRecord {
        guard let record = try await save(Edit(type: .update, collection: collection, recordId: id, values: fields)) else {
            throw SyncClientError.recordNotFound(collection: collection, id: id)
        }
        return record
    }

    /// Deletes a record (the server keeps a tombstone).
    /// - Throws: `.recordNotFound` when the device does not show the record.
    public func delete(_ collection: String, id: String) async throws {
        _ = try await save(Edit(type: .delete, collection: collection, recordId: id))
    }

    /// The record as the device shows it, or nil.
    public func record(_ collection: String, id: String) async throws -> LocalRecord? {
        try await store.queue.read { db in try RecordRows.localRecord(db, collection, id) }
    }

    /// Every record of `collection` the device shows, by id.
    public func records(_ collection: String) async throws -> [LocalRecord] {
        try await store.queue.read { db in try RecordRows.localRecords(db, collection) }
    }

    private func save(_ edit: Edit) async throws -> LocalRecord? {
        for id in [edit.collection, edit.recordId] where !DeviceIdentifier.isValid(id) {
            throw SyncClientError.invalidIdentifier(id)
        }
        let device = try await store.device()
        guard device.session != .signedOut else { throw SyncClientError.notSignedIn }
        if edit.type == .create, !device.mayCreate(appVersion: configuration.appVersion) {
            throw SyncClientError.updateRequiredToCreate(minimumVersion: device.minSupportedAppVersion ?? "?")
        }
        let record = try await store.save(edit, occurredAt: clock.now(), schemaVersion: configuration.schemaVersion)
        try await refreshStatus()
        signals.signal(.localChange)
        return record
    }
}
