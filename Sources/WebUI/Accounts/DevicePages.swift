import Foundation
import HTTP
import SyncEngine
import Templating

/// `GET /admin/devices` (device sign-in tokens, newest first, a page at a time), revoking
/// one after confirming, and releasing a device id after confirming.
///
/// A revoked token gets 401 on the device's next call; the device signs in again,
/// and its queued work is kept. A device id belongs to the user who first signed in with
/// it; releasing it lets another user sign in with it (its journal stays, under a retired id).
struct DevicePages {
    let accounts: any AccountStore
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = "/admin/devices"

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .users, handler: list)
        routes.add(.GET, "\(Self.path)/{tokenId}/revoke", area: .users, handler: confirmRevocation)
        routes.add(.POST, "\(Self.path)/{tokenId}/revoke", area: .users, handler: revoke)
        routes.add(.GET, "\(Self.path)/{tokenId}/release", area: .users, handler: confirmRelease)
        routes.add(.POST, "\(Self.path)/{tokenId}/release", area: .users, handler: release)
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
        view.notice = Self.notice(context.request.query["notice"])
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
        return .redirect(to: Self.returning(to: back, notice: "revoked"))
    }

    @Sendable func confirmRelease(_ context: WebContext) throws -> Response {
        let token = try target(context)
        let back = SafeRedirect.localPath(context.request.query["return"]) ?? Self.path
        guard token.ownsDevice else { return .redirect(to: Self.returning(to: back, notice: "not-owned")) }
        let confirmation = Confirmation(
            title: "Release device \(token.deviceId)?",
            question: "The device id \(token.deviceId) belongs to \(token.username). Releasing it lets another user sign in with it.",
            consequences: [
                "Every sign-in of \(token.username) on this device ends now.",
                "The device's journal stays in the sync centre, marked with \(token.username), under a retired id.",
                "The next user to sign in with this device id starts with a fresh history.",
            ],
            action: "\(Self.path)/\(token.tokenId)/release", confirmLabel: "Release device", cancelPath: back, hidden: ["return": back])
        return try renderer.render(confirmation.page(area: .users, session: context.session))
    }

    @Sendable func release(_ context: WebContext) throws -> Response {
        let token = try target(context)
        let back = SafeRedirect.localPath(context.form["return"]) ?? Self.path
        let retired = try accounts.releaseDevice(token.deviceId, ownedBy: token.userId, by: context.session.user.id)
        return .redirect(to: Self.returning(to: back, notice: retired == nil ? "not-owned" : "released"))
    }

    // MARK: - Helpers

    private static func returning(to back: String, notice: String) -> String {
        back + (back.contains("?") ? "&" : "?") + "notice=" + notice
    }

    /// The notice a redirect back to a device list asks for.
    static func notice(_ key: String?) -> Notice? {
        switch key {
        case "revoked": Notice(kind: .success, text: "The device was signed out. It must sign in again to sync.")
        case "released": Notice(kind: .success, text: "The device was released. Another user may now sign in with its id.")
        case "not-owned": Notice(kind: .error, text: "This user no longer owns the device id; nothing was released.")
        default: nil
        }
    }

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
        let returnQuery = SafeRedirect.encodeQuery([("return", returnPath)])
        let revokePath = "\(path)/\(token.tokenId)/revoke?" + returnQuery
        return [
            "deviceId": .string(token.deviceId), "username": .string(token.username),
            "userPath": .string("\(UserListPage.path)/\(token.userId)"),
            "platform": token.platform.map(TemplateValue.string) ?? .null, "appVersion": token.appVersion.map(TemplateValue.string) ?? .null,
            "signedIn": .string(Formatting.dateTime(token.createdAt, in: timeZone)),
            "expires": .string(Formatting.date(token.expiresAt, in: timeZone)),
            "status": .string(status.label), "statusKey": .string(status.key),
            "revokePath": isLive(token, now: now) ? .string(revokePath) : .null,
            "releasePath": token.ownsDevice ? .string("\(path)/\(token.tokenId)/release?" + returnQuery) : .null,
        ]
    }
}
