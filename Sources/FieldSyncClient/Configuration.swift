public import Foundation

extension SyncClient {
    /// How a ``SyncClient`` reaches its server and stores its data. Every seam a fleet
    /// simulator or a test needs is here: the transport, the clock, the sleep and the random
    /// numbers behind backoff jitter.
    ///
    /// ```swift
    /// var configuration = SyncClient.Configuration(
    ///     serverURL: URL(string: "https://fieldsync.example.com/")!,
    ///     databasePath: appSupport.appendingPathComponent("fieldsync.sqlite").path,
    ///     appVersion: "2.3.0")
    /// configuration.transport = sharedTransport   // many devices, one URLSession
    /// let client = try SyncClient(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The server's base URL (`https://host/`); `/v1/…` paths are resolved against it.
        public var serverURL: URL
        /// The device's SQLite file, created when missing; its photos go in a folder beside it
        /// (`<databasePath>-photos`). One client per file at a time.
        public var databasePath: String
        /// This app's semantic version, sent as `X-App-Version`.
        public var appVersion: String
        /// The collection schema version the app's payloads follow (the server migrates
        /// older payloads on accept). Ops keep the version they were written with.
        public var schemaVersion: Int
        /// Sent at sign-in (`ios`, `android`, …).
        public var platform: String
        /// How requests reach the server; ``URLSessionTransport`` by default.
        public var transport: any HTTPTransport
        /// The device clock. It orders nothing and settles no conflict: it stamps `occurredAt`
        /// (corrected by the server's `Date`) and measures elapsed time for retention and retries.
        public var now: @Sendable () -> Date
        /// Waits between retries; cancellable.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// A number in `0..<1` for backoff jitter.
        public var random: @Sendable () -> Double
        /// The waits between failed attempts.
        public var backoff: Backoff
        /// The retry ceiling: after this many failed attempts in a row, automatic sync stops
        /// and the status asks the user; a manual sync or the network returning restarts it.
        public var maxConsecutiveFailures: Int
        /// How often the automatic loop pulls when nothing else happens.
        public var pollInterval: Duration
        /// Whether pulls ask for the compact field metadata (`fieldMeta=compact`, PROTOCOL.md,
        /// Pull): each op named once per page instead of once per field. The local state is
        /// the same either way. (Compression needs no setting: `URLSessionTransport` asks for
        /// gzip and inflates the answer itself.)
        public var compactFieldMeta: Bool

        /// How many photos send their chunks at the same time (1 to 16); as many more register
        /// or finalize meanwhile. While one photo waits for the server's answer to its
        /// registration or finalize, others' chunks keep the link busy, so on a slow, distant
        /// network those round trips hide behind the transfer.
        public var photoUploadsInFlight: Int

        /// The defaults: URLSession, the system clock, 5 s to 5 min backoff, a ceiling of 10 failed
        /// attempts, a pull every 15 minutes, compact field metadata, 3 photo uploads at once;
        /// `schemaVersion` 3 is the built-in schema's.
        public init(serverURL: URL, databasePath: String, appVersion: String, schemaVersion: Int = 3) {
            self.serverURL = serverURL.absoluteString.hasSuffix("/") ? serverURL : serverURL.appendingPathComponent("")
            self.databasePath = databasePath
            self.appVersion = appVersion
            self.schemaVersion = schemaVersion
            platform = Self.currentPlatform
            transport = URLSessionTransport()
            now = { Date() }
            sleep = { try await Task.sleep(for: $0) }
            random = { Double.random(in: 0..<1) }
            backoff = Backoff()
            maxConsecutiveFailures = 10
            pollInterval = .seconds(15 * 60)
            compactFieldMeta = true
            photoUploadsInFlight = 3
        }

        private static var currentPlatform: String {
            #if os(iOS)
            "ios"
            #elseif os(Android)
            "android"
            #elseif os(macOS)
            "macos"
            #else
            "linux"
            #endif
        }
    }
}
