public import Foundation
import HTTP

/// `GET /v1/openapi.json`: the OpenAPI document of the device API, without authentication,
/// so device teams generate clients from the contract of the server they talk to.
///
/// The document is `docs/openapi.yaml`, kept as JSON in the resources (`Public/openapi.json`,
/// written by `scripts/openapi-json`) because the server reads no YAML. It is read once at start.
///
/// ```swift
/// try OpenAPIController(resources: configuration.resourcesDirectory).register(on: routes)
/// ```
public struct OpenAPIController: Sendable {
    /// Where the JSON copy lives below the resources folder.
    public static let documentPath = "Public/openapi.json"
    let document: Data

    public init(document: Data) {
        self.document = document
    }

    /// Reads the document from the resources folder.
    /// - Throws: when the file is missing or unreadable, so a server without its contract does not start.
    public init(resources: URL) throws {
        self.init(document: try Data(contentsOf: resources.appendingPathComponent(Self.documentPath)))
    }

    public func register(on routes: APIRoutes) {
        routes.addPublic(.GET, "/v1/openapi.json", handler: serve)
    }

    @Sendable func serve(_ request: Request) -> Response {
        Response(
            status: 200, headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=300"],
            body: .bytes(document))
    }
}
