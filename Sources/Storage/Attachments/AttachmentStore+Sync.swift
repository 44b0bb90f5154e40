import Foundation
import Postgres
import Support
import SyncEngine

/// The sync store asks, inside its push transaction, which `dependsOn` ids are finalized.
/// An id counts once any device finalized an attachment of that name.
extension AttachmentStore: FinalizedAttachmentLookup {
    public func finalized(among ids: [String], on connection: PostgresConnection) throws -> Set<String> {
        try Self.finalized(among: ids, deviceId: nil, on: connection)
    }
}

/// Re-attempts the uploading device's deferred ops when one of its attachments finalizes
/// (PROTOCOL.md push rule 6). Releasing is idempotent: ops still waiting for other
/// attachments stay deferred.
public struct DeferredOpRelease: AttachmentFinalizationListener {
    let pushes: PushService
    let logger: Logger

    public init(pushes: PushService, logger: Logger) {
        self.pushes = pushes
        self.logger = logger
    }

    public func attachmentFinalized(attId: String, deviceId: String) {
        do {
            _ = try pushes.releaseDeferred(deviceId: deviceId)
        } catch {
            // The upload itself is complete; the device's next push (or a worker) retries the release.
            logger.error("releasing deferred ops failed", metadata: ["device.id": deviceId, "attachment.id": attId, "error": "\(error)"])
        }
    }
}
