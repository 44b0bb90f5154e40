import Foundation
import HTTP
import Storage
import Synchronization
import SyncEngine
import SyncProtocol

/// `GET /v1/config`: the limits and settings a device needs, and the collection schema.
///
/// The body only changes with the settings, so its encoded bytes are kept and reused
/// until the settings differ.
public struct ConfigController: Sendable {
    let settings: SettingsStore
    let schema: Schema
    let authenticator: Authenticator
    private let cache = CachedBody()

    public init(settings: SettingsStore, schema: Schema, authenticator: Authenticator) {
        self.settings = settings
        self.schema = schema
        self.authenticator = authenticator
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/config", handler: config)
    }

    @Sendable func config(_ request: Request) throws -> Response {
        _ = try authenticator.authenticate(request)
        let current = try settings.current()
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
