/// Whether the database answers: what `GET /v1/health` asks of it.
public protocol HealthProbe: Sendable {
    /// True when a trivial query succeeds now; never throws, since "no" is an answer.
    func databaseAnswers() -> Bool
}
