import Foundation
import HTTP
public import SyncEngine
import SyncProtocol

/// `GET /v1/team/rollup`: a team's members and their sync figures, for supervisors' phones.
///
/// A supervisor gets their own team; an administrator names one with `?team=`; anyone
/// else gets 403 `FORBIDDEN`.
public struct TeamRollupController: Sendable {
    let rollups: any TeamRollupStore

    public init(rollups: any TeamRollupStore) {
        self.rollups = rollups
    }

    public func register(on routes: APIRoutes) {
        routes.add(.GET, "/v1/team/rollup", admission: .authenticated, handler: rollup)
    }

    @Sendable func rollup(_ device: DeviceContext) throws -> Response {
        let user = device.identity.user
        let team: String
        switch user.role {
        case .supervisor:
            guard let own = user.teamId else { throw APIError.forbidden("You are not in a team, so there is no roll-up to show.") }
            team = own
        case .admin:
            guard let named = device.request.query["team"], !named.isEmpty else {
                throw APIError.validationFailed(field: "team", "Name the team with ?team=.")
            }
            team = named
        case .field, .dispatcher:
            throw APIError.forbidden("Only supervisors and administrators see team roll-ups.")
        }
        let members = try rollups.rollup(teamId: team)
        return try .json(TeamRollupResponse(teamId: team, generatedAt: RFC3339.string(from: Date()), members: members.map(MemberFigures.init)))
    }
}

/// The body of `GET /v1/team/rollup`.
struct TeamRollupResponse: Encodable {
    let teamId: String
    let generatedAt: String
    let members: [MemberFigures]
}

/// One member in the roll-up.
struct MemberFigures: Encodable {
    struct Records: Encodable {
        let active: Int
        let inReview: Int
        let deleted: Int
    }

    struct Ops: Encodable {
        let applied: Int
        let deferred: Int
        let rejected: Int
        let conflict: Int
    }

    let userId: String
    let username: String
    let role: String
    let suspended: Bool
    let records: Records
    let ops: Ops
    let openConflicts: Int
    let devices: Int
    /// RFC 3339, or null when no device of theirs has synced.
    let lastSyncAt: String?

    init(_ member: MemberRollup) {
        (userId, username, role, suspended) = (member.userId, member.username, member.role.rawValue, member.suspended)
        records = Records(active: member.activeRecords, inReview: member.recordsInReview, deleted: member.deletedRecords)
        ops = Ops(applied: member.opsApplied, deferred: member.opsDeferred, rejected: member.opsRejected, conflict: member.opsConflict)
        (openConflicts, devices, lastSyncAt) = (member.openConflicts, member.devices, member.lastSyncAt.map(RFC3339.string(from:)))
    }

    private enum CodingKeys: String, CodingKey {
        case userId, username, role, suspended, records, ops, openConflicts, devices, lastSyncAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(username, forKey: .username)
        try container.encode(role, forKey: .role)
        try container.encode(suspended, forKey: .suspended)
        try container.encode(records, forKey: .records)
        try container.encode(ops, forKey: .ops)
        try container.encode(openConflicts, forKey: .openConflicts)
        try container.encode(devices, forKey: .devices)
        // Always present, null when unknown: clients read one shape.
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
    }
}
