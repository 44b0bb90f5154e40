import AppTesting
import Foundation
import HTTP
import SyncAPI
import Testing

@testable import App

/// `GET /v1/openapi.json` and the document it serves (docs/openapi.yaml, copied to
/// `Public/openapi.json` by scripts/openapi-json).
@Suite("OpenAPI document", .serialized)
struct OpenAPIDocumentTests {
    private static let operations: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]

    @Test("is served without a token, as JSON, and is the OpenAPI 3.1 document of the resources")
    func served() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }

        let response = try await server.client.get("/v1/openapi.json")

        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json; charset=utf-8")
        let document = try #require(try Self.object(response.body))
        #expect(document["openapi"] as? String == "3.1.0")
        let resources = server.application.configuration.resourcesDirectory
        let resource = try Data(contentsOf: resources.appendingPathComponent(OpenAPIController.documentPath))
        #expect(response.body == resource)
    }

    @Test("documents every /v1 route the server registers, and no route it does not serve")
    func coversEveryRoute() async throws {
        let server = try await TestServer.startSync()
        defer { server.finish() }
        let resources = server.application.configuration.resourcesDirectory
        let features = server.application.features
        let router = try Application.router(server.core, features, jobs: Application.worker(server.core, features))
        let served = Set(router.routes.filter { $0.pattern.hasPrefix("/v1/") }.map { "\($0.method.rawValue) \($0.pattern)" })

        let data = try Data(contentsOf: resources.appendingPathComponent(OpenAPIController.documentPath))
        let paths = try #require(try Self.object(data)?["paths"] as? [String: [String: Any]])
        let documented = Set(
            paths.flatMap { path, item in
                item.keys.filter(Self.operations.contains).map { "\($0.uppercased()) \(path)" }
            })

        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
    }

    private static func object(_ json: Data) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: json) as? [String: Any]
    }
}
