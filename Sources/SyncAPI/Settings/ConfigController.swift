import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Synchronization

/// `GET /v1/config`: the limits and settings a device needs, and the collection schema.
///
/// The body only changes with the settings, so its encoded bytes are kept and reused
/// until the settings differ.
public struct ConfigController: Sendable {
    let schema: Schema
    private let cache = CachedBody()

    public init(schema: Schema) {
        self.schema = schema
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/config", admission: .authenticated, handler: config)
    }

    @Sendable func config(_ device: DeviceContext) throws -> Response {
        let current = device.settings
        let body = try cache.body(for: current) {
            let response = ConfigResponse(
                minSupportedAppVersion: current.minSupportedAppVersion, serverSchemaVersion: schema.version,
                maxOpsPerPush: current.maxOpsPerPush, maxPullLimit: current.maxPullLimit, chunkBytes: current.chunkBytes,
                maxAttachmentBytes: current.maxAttachmentBytes, maxAttachmentBytesPerRecord: current.maxAttachmentBytesPerRecord,
                localRetentionDays: current.localRetentionDays, collections: schema.collectionsDocument())
            return try JSONEncoder().encode(response)
        }
        return Response(status: 200, headers: ["Content-Type": "application/json; charset=utf-8"], body: .bytes(body))
    }
}

/// The last encoded config body and the settings it was made from.
private final class CachedBody: Sendable {
    private let entry = Mutex<(settings: ServerSettings, body: Data)?>(nil)

    func body(for settings: ServerSettings, make: () throws -> Data) throws -> Data {
        if let cached = entry.withLock({ $0 }), cached.settings == settings { return cached.body }
        let body = try make()
        entry.withLock { $0 = (settings, body) }
        return body
    }
}
