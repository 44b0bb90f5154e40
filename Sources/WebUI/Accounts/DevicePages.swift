import Foundation
import HTTP
import SyncEngine
import Templating

/// `GET /admin/devices` (device sign-in tokens, newest first, a page at a time) and revoking
/// one after confirming.
///
/// A revoked token gets 401 on the device's next call; the device signs in again,
/// and its queued work is kept.
struct DevicePages {
    let accounts: any AccountStore
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = "/admin/devices"

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .users, handler: list)
        routes.add(.GET, "\(Self.path)/{tokenId}/revoke", area: .users, handler: confirmRevocation)
        routes.add(.POST, "\(Self.path)/{tokenId}/revoke", area: .users, handler: revoke)
    }

    /// Tokens per page of the list.
    static let pageSize = 100

    @Sendable func list(_ context: WebContext) throws -> Response {
        let now = configuration.now()
        let showAll = context.request.query["show"] == "all"
        let pager = try Pager(context.request.query)
        let page = try accounts.tokens(liveAt: showAll ? nil : now, after: pager.cursor, limit: Self.pageSize)
        let counts = try accounts.tokenCounts(liveAt: now)
        let filters = showAll ? [("show", "all")] : []
        // Signing a device out comes back to this same page of the list.
        let here = pager.address(path: Self.path, filters: filters)
        let content: [String: TemplateValue] = [
            "devices": .array(page.rows.map { Self.row($0, now: now, timeZone: configuration.timeZone, returnPath: here) }),
            "hasDevices": .bool(!page.rows.isEmpty), "showUser": true, "devicesTab": true, "showAll": .bool(showAll),
            "liveCount": .int(counts.live), "allCount": .int(counts.all),
            "pager": pager.navigation(
                path: Self.path, filters: filters, count: page.rows.count, total: showAll ? counts.all : counts.live, next: page.next),
        ]
        var view = Page("pages/devices", title: "Devices", area: .users, session: context.session, content: content)
        if context.request.query["notice"] == "revoked" {
            view.notice = Notice(kind: .success, text: "The device was signed out. It must sign in again to sync.")
        }
        return try renderer.render(view)
    }

    @Sendable func confirmRevocation(_ context: WebContext) throws -> Response {
        let token = try target(context)
        let back = SafeRedirect.localPath(context.request.query["return"]) ?? Self.path
        let confirmation = Confirmation(
            title: "Sign out device \(token.deviceId)?",
            question: "The device of \(token.username) will have to sign in again before it can sync.",
            consequences: [
                "Its next sync is refused until someone signs in on it.",
                "Work queued on the device is kept and uploaded after the new sign-in.",
            ],
            action: "\(Self.path)/\(token.tokenId)/revoke", confirmLabel: "Sign out device", cancelPath: back, hidden: ["return": back])
        return try renderer.render(confirmation.page(area: .users, session: context.session))
    }

    @Sendable func revoke(_ context: WebContext) throws -> Response {
        let token = try target(context)
        try accounts.revoke(tokenId: token.tokenId)
        let back = SafeRedirect.localPath(context.form["return"]) ?? Self.path
        return .redirect(to: back + (back.contains("?") ? "&" : "?") + "notice=revoked")
    }

    // MARK: - Helpers

    /// The token the path names.
    /// - Throws: 404 when there is none.
    private func target(_ context: WebContext) throws -> DeviceTokenInfo {
        guard let token = try accounts.token(id: try context.request.parameter("tokenId")) else { throw PageError.notFound }
        return token
    }

    static func isLive(_ token: DeviceTokenInfo, now: Date) -> Bool {
        token.revokedAt == nil && token.expiresAt > now
    }

    /// A token as a table row, with its status and, while live, the way to revoke it.
    static func row(_ token: DeviceTokenInfo, now: Date, timeZone: TimeZone, returnPath: String) -> TemplateValue {
        let status: (label: String, key: String) =
            token.revokedAt != nil ? ("Signed out", "revoked") : token.expiresAt <= now ? ("Expired", "expired") : ("Active", "active")
        let revokePath = "\(path)/\(token.tokenId)/revoke?" + SafeRedirect.encodeQuery([("return", returnPath)])
        return [
            "deviceId": .string(token.deviceId), "username": .string(token.username),
            "userPath": .string("\(UserListPage.path)/\(token.userId)"),
            "platform": token.platform.map(TemplateValue.string) ?? .null, "appVersion": token.appVersion.map(TemplateValue.string) ?? .null,
            "signedIn": .string(Formatting.dateTime(token.createdAt, in: timeZone)),
            "expires": .string(Formatting.date(token.expiresAt, in: timeZone)),
            "status": .string(status.label), "statusKey": .string(status.key),
            "revokePath": isLive(token, now: now) ? .string(revokePath) : .null,
        ]
    }
}
