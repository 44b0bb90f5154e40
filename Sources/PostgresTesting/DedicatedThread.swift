import Foundation

/// Runs blocking work (starting an application or a cluster, waiting on libpq or a process) on a new
/// thread and suspends the calling task until it is done.
///
/// Tests run on Swift's cooperative pool, which has one thread per core: blocking them
/// starves every other test's tasks, so time-bounded assertions elsewhere fail.
///
/// ```swift
/// let status = try await onDedicatedThread { CommandLineTool().run(["user", "list"]) }
/// ```
public func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
