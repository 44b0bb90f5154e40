import SyncEngine
import SyncProtocol

/// Which team's figures and sync data a viewer may see: everything for dispatchers and administrators,
/// their own team for supervisors (nothing when they have none).
struct TeamScope {
    let teamId: String?
    let blocked: Bool
    let label: String

    init(_ session: WebSession) {
        let user = session.user
        if user.role == .supervisor {
            teamId = user.teamId
            blocked = user.teamId == nil
            label = user.teamId.map { "Team \($0)" } ?? "No team"
        } else {
            (teamId, blocked, label) = (nil, false, "All teams")
        }
    }
}
