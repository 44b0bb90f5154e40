public import Support

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
