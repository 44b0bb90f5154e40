import Synchronization

/// Services that start in the order given and stop in the reverse order, so that none stops
/// while a later one (which may use it) still runs.
///
/// ```swift
/// let group = ServiceGroup([listener, hub, worker, http], logger: logger)
/// try group.start()
/// group.stop()
/// ```
public final class ServiceGroup: Sendable {
    private let services: [any Service]
    private let logger: Logger
    /// The services started and not yet stopped, in start order.
    private let running = Mutex<[any Service]>([])

    public init(_ services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Starts every service in order. When one fails, those already started are stopped (in
    /// reverse order) and the failure is rethrown.
    public func start() throws {
        for service in services {
            do {
                try service.start()
            } catch {
                logger.error("service failed to start", metadata: ["service": service.name, "error": "\(error)"])
                stop()
                throw error
            }
            running.withLock { $0.append(service) }
            logger.debug("service started", metadata: ["service": service.name])
        }
    }

    /// Stops the running services, the last started first, each once the one after it has
    /// stopped. Calling it again does nothing.
    public func stop() {
        let started = running.withLock { running in
            defer { running = [] }
            return running
        }
        for service in started.reversed() {
            service.stop()
            logger.debug("service stopped", metadata: ["service": service.name])
        }
    }
}
