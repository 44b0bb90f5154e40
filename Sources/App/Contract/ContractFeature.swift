public import SyncAPI

/// The device API's contract: its OpenAPI document at `GET /v1/openapi.json`.
public struct ContractFeature: Feature {
    let document: OpenAPIController

    init(_ core: Core) throws {
        document = try OpenAPIController(resources: core.configuration.resourcesDirectory)
    }

    public func routes(on api: APIRoutes) {
        document.register(on: api)
    }
}
