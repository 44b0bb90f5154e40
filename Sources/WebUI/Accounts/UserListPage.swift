public import Cryptography
import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin/users` (accounts by name, a page at a time, with their live devices) and
/// `POST /admin/users` (create one).
struct UserListPage {
    let accounts: any AccountStore
    let passwords: PasswordHasher
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.users.path

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .users, handler: list)
        routes.add(.POST, Self.path, area: .users, handler: create)
    }

    @Sendable func list(_ context: WebContext) throws -> Response {
        try page(NewUserForm(), pager: try Pager(context.request.query), context: context)
    }

    @Sendable func create(_ context: WebContext) throws -> Response {
        var form = NewUserForm(context.form)
        guard let valid = form.validated() else { return try page(form, pager: try Pager([:]), context: context, status: 422) }
        do {
            let hash = try passwords.hash(valid.password)
            let user = try accounts.createUser(username: valid.username, role: valid.role, teamId: valid.teamId, passwordHash: hash)
            return .redirect(to: UserPages.path(of: user) + "?notice=created")
        } catch AccountError.usernameTaken {
            form.reject(username: "This user name is already taken.")
        } catch AccountError.invalidUsername {
            form.reject(username: "Use up to 64 letters, digits, dots, dashes or underscores, without spaces.")
        }
        return try page(form, pager: try Pager([:]), context: context, status: 422)
    }

    /// Users per page of the list.
    static let pageSize = 100

    /// The page of the list of users that `pager` names, next to the "new user" form (a
    /// refused form comes back with the list's first page).
    private func page(_ form: NewUserForm, pager: Pager, context: WebContext, status: Int = 200) throws -> Response {
        let page = try accounts.users(devicesLiveAt: configuration.now(), after: pager.cursor, limit: Self.pageSize)
        let total = try accounts.countUsers()
        let content: [String: TemplateValue] = [
            "users": .array(page.rows.map(row)),
            "userCount": .string(Formatting.count(total)),
            "form": [
                "username": .string(form.username), "team": .string(form.team),
                "roles": .array(
                    Role.allCases.map { role in
                        ["value": .string(role.rawValue), "label": .string(Formatting.roleName(role)), "selected": .bool(form.role == role.rawValue)]
                    }),
                "errors": .dictionary(form.errors.mapValues(TemplateValue.string)),
            ],
            "usersTab": true,
            "pager": pager.navigation(path: Self.path, filters: [], count: page.rows.count, total: total, next: page.next),
        ]
        return try renderer.render(
            Page("pages/users", title: Area.users.title, area: .users, session: context.session, content: content, status: status))
    }

    private func row(_ listed: ListedUser) -> TemplateValue {
        let user = listed.account
        return [
            "username": .string(user.username), "path": .string(UserPages.path(of: user)),
            "role": .string(Formatting.roleName(user.role)), "roleKey": .string(user.role.rawValue),
            "team": user.teamId.map(TemplateValue.string) ?? .null, "suspended": .bool(user.suspended),
            "devices": .int(listed.liveDevices), "created": .string(Formatting.date(user.createdAt, in: configuration.timeZone)),
        ]
    }
}

extension Area {
    /// `/admin/users`: users and their device sign-ins.
    public static let users = Area(path: "/admin/users", title: "Users & devices", access: [.admin: .manage])
}

extension BackOfficePages {
    /// Adds signing in and out, and the pages of users and their devices.
    public func addAccountPages(accounts: any AccountStore, login: LoginService, passwords: PasswordHasher) {
        SignInPages(login: login, sessions: sessions, csrf: csrf, renderer: renderer).register(on: self)
        UserListPage(accounts: accounts, passwords: passwords, renderer: renderer, configuration: configuration).register(on: self)
        UserPages(accounts: accounts, passwords: passwords, sessions: sessions, renderer: renderer, configuration: configuration)
            .register(on: self)
        DevicePages(accounts: accounts, renderer: renderer, configuration: configuration).register(on: self)
    }
}
