// swift-tools-version:6.0
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A library target of the server with the package's common settings.
func module(_ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(name: name, dependencies: dependencies, resources: resources, swiftSettings: swiftSettings)
}

func tests(_ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .testTarget(name: name, dependencies: dependencies, resources: resources, swiftSettings: swiftSettings)
}

let package = Package(
    name: "FieldSync",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "fieldsync", targets: ["fieldsync"]),
        .executable(name: "fieldsync-tools", targets: ["fieldsync-tools"]),
        .library(name: "FieldSyncClient", targets: ["FieldSyncClient"]),
        .executable(name: "fieldsync-device", targets: ["fieldsync-device"]),
    ],
    targets: [
        // MARK: - C libraries
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // MARK: - Infrastructure
        module("Support", []),
        module("Cryptography", ["COpenSSL"]),
        module("Postgres", ["CLibPQ", "Support"]),
        module("HTTP", ["CMicroHTTPD", "CZlib", "Support"]),
        module("Templating", []),

        // MARK: - Domain
        module("SyncProtocol", []),
        module("SyncEngine", ["SyncProtocol", "Support", "Cryptography"], resources: [.copy("Resources/schema.json")]),

        // MARK: - Adapters
        module("Storage", ["Postgres", "SyncEngine", "SyncProtocol", "Cryptography", "Support"]),
        module("SyncAPI", ["HTTP", "SyncEngine", "SyncProtocol", "Cryptography", "Support"]),
        module("WebUI", ["HTTP", "Templating", "SyncEngine", "SyncProtocol", "Cryptography", "Support"]),
        module("Worker", ["SyncEngine", "Support"]),

        // MARK: - Composition and executable
        module("App", ["HTTP", "Postgres", "Storage", "SyncAPI", "WebUI", "Worker", "SyncEngine", "SyncProtocol", "Cryptography", "Support"]),
        .executableTarget(name: "fieldsync", dependencies: ["App"], swiftSettings: swiftSettings),

        // MARK: - Tooling (benchmarks, the fleet simulator, the link-shaping relay, the demo fleet;
        // no product target imports these, so the server binary links neither them nor the
        // HTTP client and device SDK they use)
        module("Seeding", ["Postgres", "Storage"]),
        module(
            "FieldSyncTools",
            ["App", "HTTP", "Seeding", "Storage", "SyncAPI", "SyncEngine", "SyncProtocol", "Cryptography", "Support", "FieldSyncClient"]),
        .executableTarget(name: "fieldsync-tools", dependencies: ["App", "FieldSyncTools"], swiftSettings: swiftSettings),

        // MARK: - Device SDK
        module("SQLite", ["CSQLite"]),
        // SHA-256 comes from CryptoKit on Apple platforms, from OpenSSL (Cryptography) elsewhere.
        module(
            "FieldSyncClient",
            ["SQLite", "SyncProtocol", .target(name: "Cryptography", condition: .when(platforms: [.linux, .android, .windows]))]),
        .executableTarget(name: "fieldsync-device", dependencies: ["FieldSyncClient", "SyncProtocol", "Support"], swiftSettings: swiftSettings),

        // MARK: - Test support
        module("PostgresTesting", ["Postgres", "Support"]),
        // In-memory implementations of SyncEngine's ports, for tests and the contract suites; no
        // product target depends on it.
        module("SyncEngineTesting", ["SyncEngine", "SyncProtocol"]),
        module("AppTesting", ["App", "PostgresTesting", "Postgres", "Storage", "SyncEngine", "SyncProtocol", "Cryptography", "Support"]),

        // MARK: - Tests
        tests("SupportTests", ["Support"]),
        tests("CryptographyTests", ["Cryptography"]),
        tests("PostgresTests", ["Postgres", "PostgresTesting", "Support"]),
        tests("HTTPTests", ["HTTP", "Support", "SyncAPI", "SyncProtocol"]),
        tests("TemplatingTests", ["Templating"], resources: [.copy("Fixtures")]),
        tests("SyncEngineTests", ["SyncEngine", "SyncEngineTesting", "SyncProtocol", "Support", "Cryptography"]),
        tests("ContractTests", ["SyncEngine", "SyncEngineTesting", "Storage", "Postgres", "PostgresTesting", "SyncProtocol", "Support"]),
        tests("SyncAPITests", ["SyncAPI", "HTTP", "SyncEngine", "SyncProtocol", "Support"]),
        tests("StorageTests", ["Storage", "Postgres", "PostgresTesting", "Cryptography", "Support", "SyncProtocol", "SyncEngine"]),
        tests("SQLiteTests", ["SQLite"]),
        tests(
            "FieldSyncClientTests",
            ["FieldSyncClient", "SQLite", "App", "AppTesting", "SyncProtocol", "SyncEngine", "Storage", "Postgres", "SyncAPI"]),
        tests("WebUITests", ["WebUI", "HTTP", "SyncEngine", "SyncProtocol", "Templating"]),
        tests(
            "AppTests",
            [
                "App", "AppTesting", "HTTP", "SyncAPI", "SyncEngine", "SyncProtocol", "WebUI", "Storage", "Postgres", "PostgresTesting",
                "Cryptography", "Support", "Worker",
            ]),
        tests("SeedingTests", ["Seeding", "Storage", "Postgres", "PostgresTesting", "Support", "SyncEngine", "SyncProtocol"]),
        tests(
            "FieldSyncToolsTests",
            ["FieldSyncTools", "App", "AppTesting", "PostgresTesting", "FieldSyncClient", "Storage", "SyncEngine", "SyncProtocol"]),
    ]
)
