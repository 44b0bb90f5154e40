import Cryptography
import Foundation
import HTTP
import Storage
import SyncProtocol
import Templating

/// `GET /admin/users` (every account with its devices) and `POST /admin/users` (create one).
struct UsersController {
    let accounts: AccountStore
    let passwords: PasswordHasher
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.users.path

    func register(on routes: PageRoutes) {
        routes.add(.GET, Self.path, area: .users, handler: list)
        routes.add(.POST, Self.path, area: .users, handler: create)
    }

    @Sendable func list(_ context: WebContext) throws -> Response {
        try page(NewUserForm(), context: context)
    }

    @Sendable func create(_ context: WebContext) throws -> Response {
        var form = NewUserForm(context.form)
        guard let valid = form.validated() else { return try page(form, context: context, status: 422) }
        do {
            let hash = try passwords.hash(valid.password)
            let user = try accounts.createUser(username: valid.username, role: valid.role, teamId: valid.teamId, passwordHash: hash)
            return .redirect(to: UserController.path(of: user) + "?notice=created")
        } catch AccountError.usernameTaken {
            form.reject(username: "This user name is already taken.")
        } catch AccountError.invalidUsername {
            form.reject(username: "Use up to 64 letters, digits, dots, dashes or underscores, without spaces.")
        }
        return try page(form, context: context, status: 422)
    }

    /// The list of users next to the "new user" form.
    private func page(_ form: NewUserForm, context: WebContext, status: Int = 200) throws -> Response {
        let now = configuration.now()
        let liveDevices = Dictionary(grouping: try accounts.listTokens().filter { $0.revokedAt == nil && $0.expiresAt > now }, by: \.userId)
        let users = try accounts.listUsers()
        let content: [String: TemplateValue] = [
            "users": .array(users.map { row($0, devices: Set(liveDevices[$0.id]?.map(\.deviceId) ?? []).count) }),
            "userCount": .string(Formatting.count(users.count)),
            "form": [
                "username": .string(form.username), "team": .string(form.team),
                "roles": .array(
                    Role.allCases.map { role in
                        ["value": .string(role.rawValue), "label": .string(Formatting.roleName(role)), "selected": .bool(form.role == role.rawValue)]
                    }),
                "errors": .dictionary(form.errors.mapValues(TemplateValue.string)),
            ],
            "usersTab": true,
        ]
        return try renderer.render(
            Page("pages/users", title: Area.users.title, area: .users, session: context.session, content: content, status: status))
    }

    private func row(_ user: UserAccount, devices: Int) -> TemplateValue {
        [
            "username": .string(user.username), "path": .string(UserController.path(of: user)),
            "role": .string(Formatting.roleName(user.role)), "roleKey": .string(user.role.rawValue),
            "team": user.teamId.map(TemplateValue.string) ?? .null, "suspended": .bool(user.suspended),
            "devices": .int(devices), "created": .string(Formatting.date(user.createdAt, in: configuration.timeZone)),
        ]
    }
}
