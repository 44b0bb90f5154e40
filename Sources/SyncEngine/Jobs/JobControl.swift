/// A background job as the back-office lists it.
public struct JobDescription: Sendable, Equatable {
    public let name: String
    /// One line on what it does.
    public let summary: String
    public let schedule: JobSchedule

    public init(name: String, summary: String, schedule: JobSchedule) {
        self.name = name
        self.summary = summary
        self.schedule = schedule
    }
}

/// What the back-office needs from the background worker: its jobs, and a run on request.
public protocol JobControl: Sendable {
    /// Every job with its schedule under `settings`.
    func jobs(in settings: ServerSettings) -> [JobDescription]

    /// Asks for a run of the job `name` as soon as the worker can, on behalf of `userId`.
    func requestRun(of name: String, by userId: String) -> JobRequest
}

/// What asking for a run led to.
public enum JobRequest: Sendable, Equatable {
    /// The worker will start it at once (unless another instance is running it then).
    case queued
    case unknownJob
    /// This process runs no worker (`serve --no-worker`).
    case noWorker
}
