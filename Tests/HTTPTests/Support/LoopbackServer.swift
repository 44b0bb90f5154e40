import Foundation
import HTTP
import Support
import SyncAPI

/// A server on an ephemeral loopback port with a capturing logger.
struct LoopbackServer {
    let server: HTTPServer
    let log: LogSink

    var port: Int { server.port }

    /// Starts a server with `routes` registered on a fresh router.
    init(configure: (inout HTTPServer.Configuration) -> Void = { _ in }, routes: (Router) -> Void) throws {
        var configuration = HTTPServer.Configuration(port: 0)
        configure(&configuration)
        let log = LogSink.capturing()
        let logger = Logger(label: "test.http", level: .info, sink: log)
        let router = Router(logger: logger, failures: APIFailureRenderer())
        routes(router)
        server = HTTPServer(configuration: configuration, router: router, logger: logger)
        self.log = log
        try server.start()
    }

    func stop() {
        server.shutdown(timeout: .seconds(5))
    }
}
