public import Support
public import SyncAPI
public import WebUI
public import Worker

/// One part of FieldSync, from its stores to what it adds to the running server: device API
/// routes, back-office pages, background jobs and long-running services.
///
/// A feature builds what it needs from the ``Core`` in its `init` (each lives in the folder
/// named after it, like its parts in SyncEngine, Storage, SyncAPI and WebUI); `Application`
/// lists the features.
///
/// ```swift
/// struct TeamFeature: Feature {
///     let rollups: PostgresTeamRollupStore
///     init(_ core: Core) { rollups = PostgresTeamRollupStore(database: core.database) }
///     func routes(on api: APIRoutes) { TeamRollupController(rollups: rollups).register(on: api) }
///     func pages(on backOffice: BackOfficePages) { backOffice.addTeamPage(rollups: rollups) }
/// }
/// ```
public protocol Feature: Sendable {
    /// Adds the feature's device API routes.
    func routes(on api: APIRoutes)

    /// Adds the feature's back-office pages.
    func pages(on backOffice: BackOfficePages)

    /// The jobs the background worker runs for the feature.
    var jobs: [any Job] { get }

    /// Parts that run as long as the server: started before it listens, stopped after it stops.
    var services: [any Service] { get }
}

extension Feature {
    public func routes(on api: APIRoutes) {}

    public func pages(on backOffice: BackOfficePages) {}

    public var jobs: [any Job] { [] }

    public var services: [any Service] { [] }
}
