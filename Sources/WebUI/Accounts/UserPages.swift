import Cryptography
import Foundation
import HTTP
import SyncEngine
import SyncProtocol
import Templating

/// One user's page, `GET /admin/users/{id}`, and what an administrator does there:
/// reset the password, suspend (after confirming) and reactivate.
///
/// Suspending and resetting a password sign the user out of the back-office everywhere and
/// revoke the user's device tokens: after a reset the devices get 401 and sign in again; a
/// suspended user's devices get 403, and 401 after reactivation until they sign in again.
struct UserPages {
    let accounts: any AccountStore
    let passwords: PasswordHasher
    let sessions: SessionManager
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static func path(of user: UserAccount) -> String {
        "\(UserListPage.path)/\(user.id)"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, "/admin/users/{id}", area: .users, handler: show)
        routes.add(.POST, "/admin/users/{id}/password", area: .users, handler: resetPassword)
        routes.add(.GET, "/admin/users/{id}/suspend", area: .users, handler: confirmSuspension)
        routes.add(.POST, "/admin/users/{id}/suspend", area: .users, handler: suspend)
        routes.add(.POST, "/admin/users/{id}/reactivate", area: .users, handler: reactivate)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let user = try target(context)
        let notice: Notice? =
            switch context.request.query["notice"] {
            case "created": Notice(kind: .success, text: "\(user.username) can now sign in.")
            case "password": Notice(kind: .success, text: "Password changed. \(user.username) was signed out of the back-office and every device.")
            case "suspended": Notice(kind: .success, text: "\(user.username) is suspended.")
            case "reactivated": Notice(kind: .success, text: "\(user.username) is active again.")
            default: DevicePages.notice(context.request.query["notice"])
            }
        return try page(user, context: context, notice: notice)
    }

    @Sendable func resetPassword(_ context: WebContext) throws -> Response {
        let user = try target(context)
        let password = context.form["password"] ?? ""
        if let problem = PasswordRules.problem(password, repeated: context.form["repeat"] ?? "") {
            return try page(user, context: context, passwordError: problem, status: 422)
        }
        try accounts.setPasswordHash(userId: user.id, try passwords.hash(password))
        try sessions.signOutEverywhere(userId: user.id)
        return .redirect(to: Self.path(of: user) + "?notice=password")
    }

    @Sendable func confirmSuspension(_ context: WebContext) throws -> Response {
        let user = try target(context)
        if let refusal = try suspensionRefusal(user, context) { return refusal }
        let confirmation = Confirmation(
            title: "Suspend \(user.username)?", question: "\(user.username) will be locked out until an administrator reactivates the account.",
            consequences: [
                "Signed out of the back-office and every device at once.",
                "Their devices are refused on the next sync and must sign in again after reactivation.",
                "Work already queued on the devices stays there and is uploaded after that new sign-in.",
            ],
            action: Self.path(of: user) + "/suspend", confirmLabel: "Suspend \(user.username)", cancelPath: Self.path(of: user))
        return try renderer.render(confirmation.page(area: .users, session: context.session))
    }

    @Sendable func suspend(_ context: WebContext) throws -> Response {
        let user = try target(context)
        if let refusal = try suspensionRefusal(user, context) { return refusal }
        try accounts.setSuspended(username: user.username, true)
        try sessions.signOutEverywhere(userId: user.id)
        return .redirect(to: Self.path(of: user) + "?notice=suspended")
    }

    @Sendable func reactivate(_ context: WebContext) throws -> Response {
        let user = try target(context)
        try accounts.setSuspended(username: user.username, false)
        return .redirect(to: Self.path(of: user) + "?notice=reactivated")
    }

    // MARK: - Helpers

    /// The user the path names.
    /// - Throws: 404 when there is none.
    private func target(_ context: WebContext) throws -> UserAccount {
        guard let user = try accounts.user(id: try context.request.parameter("id")) else { throw PageError.notFound }
        return user
    }

    /// The user page with an explanation, when this suspension must not happen: an
    /// administrator suspending themselves would lock everyone out of this page.
    private func suspensionRefusal(_ user: UserAccount, _ context: WebContext) throws -> Response? {
        guard user.id == context.session.user.id else { return nil }
        let notice = Notice(kind: .error, text: "You cannot suspend your own account. Ask another administrator.")
        return try page(user, context: context, notice: notice, status: 409)
    }

    private func page(
        _ user: UserAccount, context: WebContext, notice: Notice? = nil, passwordError: String? = nil, status: Int = 200
    ) throws -> Response {
        let now = configuration.now()
        let tokens = try accounts.listTokens(userId: user.id)
        let content: [String: TemplateValue] = [
            "user": [
                "id": .string(user.id), "username": .string(user.username), "path": .string(Self.path(of: user)),
                "role": .string(Formatting.roleName(user.role)), "roleKey": .string(user.role.rawValue),
                "team": user.teamId.map(TemplateValue.string) ?? .null, "suspended": .bool(user.suspended),
                "created": .string(Formatting.dateTime(user.createdAt, in: configuration.timeZone)),
                "isViewer": .bool(user.id == context.session.user.id),
            ],
            "devices": .array(tokens.map { DevicePages.row($0, now: now, timeZone: configuration.timeZone, returnPath: Self.path(of: user)) }),
            "hasDevices": .bool(!tokens.isEmpty),
            "passwordError": passwordError.map(TemplateValue.string) ?? .null,
        ]
        var page = Page("pages/user", title: user.username, area: .users, session: context.session, content: content, status: status)
        page.notice = notice
        return try renderer.render(page)
    }
}
