extension SyncClient {
    /// Edits in conflict or rejected, and photos the server refused, oldest first: what the
    /// status counts as issues.
    public func issues() async throws -> [SyncIssue] {
        try await store.issues()
    }

    /// Settles an issue. `.server` drops the device's edit (or gives up a refused photo);
    /// `.device` sends its values again as a new edit on the server's current state (or
    /// queues the photo again), which syncs like any other edit.
    /// - Throws: ``SyncClientError/issueNotFound(_:)`` when the issue is no longer open;
    ///   ``SyncClientError/photoStillNeeded(_:)`` when giving up a photo a queued edit needs.
    public func resolve(_ issue: SyncIssue, keeping choice: SyncIssue.Choice) async throws {
        try await store.resolve(issue.id, keeping: choice, occurredAt: clock.now(), schemaVersion: configuration.schemaVersion)
        try await refreshStatus()
        if choice == .device { signals.signal(.localChange) }
    }
}
