import Cryptography
import HTTP
import SyncEngine
import Templating

/// `GET /login`, `POST /login` and `POST /logout`.
///
/// Sign-in goes through the shared `LoginService`, so a password guessed here counts
/// against the same throttle as the device token endpoint. The sign-in form carries a
/// CSRF token bound to a nonce cookie set with the page, so another site cannot sign a
/// browser in to an account of its choosing.
struct SignInPages {
    let login: LoginService
    let sessions: SessionManager
    let csrf: CSRFProtection
    let renderer: PageRenderer

    func register(on routes: BackOfficePages) {
        routes.addPublic(.GET, "/", handler: { _ in .redirect(to: SafeRedirect.home) })
        routes.addPublic(.GET, "/login", handler: show)
        routes.addPublic(.POST, "/login", handler: signIn)
        routes.add(.POST, "/logout", area: nil, handler: signOut)
    }

    @Sendable func show(_ request: Request) throws -> Response {
        let next = SafeRedirect.localPath(request.query["next"]) ?? SafeRedirect.home
        if case .live = try sessions.lookup(request) { return .redirect(to: next) }
        var notice: Notice?
        if request.query["expired"] != nil {
            notice = Notice(kind: .info, text: "Your session ended. Please sign in again.")
        } else if request.query["signedOut"] != nil {
            notice = Notice(kind: .success, text: "You are signed out.")
        }
        return try form(request, next: next, username: "", notice: notice)
    }

    @Sendable func signIn(_ request: Request) throws -> Response {
        let form = FormData(request)
        let next = SafeRedirect.localPath(form["next"]) ?? SafeRedirect.home
        let username = form.trimmed("username")
        guard let nonce = request.cookies[Cookies.loginNonce],
            csrf.verify(form[CSRFProtection.fieldName], for: nonce, purpose: .login)
        else {
            let notice = Notice(kind: .error, text: "This sign-in form has expired. Please enter your details again.")
            return try self.form(request, next: next, username: username, notice: notice, status: 403)
        }
        let user: UserAccount
        do {
            user = try login.login(username: username, password: form["password"] ?? "", address: request.clientAddress)
        } catch let failure as LoginService.Failure {
            return try refused(request, failure, next: next, username: username)
        }
        guard AccessPolicy.canSignIn(user.role) else {
            let notice = Notice(
                kind: .error,
                text: "Field accounts sign in on the FieldSync app. The back-office is for supervisors, dispatchers and administrators.")
            return try self.form(request, next: next, username: username, notice: notice, status: 403)
        }
        let id = try sessions.signIn(user)
        var response = Response.redirect(to: next)
        response.headers.add(name: "Set-Cookie", value: Cookies.set(Cookies.session, id, for: request))
        response.headers.add(name: "Set-Cookie", value: Cookies.clear(Cookies.loginNonce, for: request))
        return response
    }

    @Sendable func signOut(_ context: WebContext) throws -> Response {
        try sessions.signOut(context.session)
        var response = Response.redirect(to: "/login?signedOut=1")
        response.headers.add(name: "Set-Cookie", value: Cookies.clear(Cookies.session, for: context.request))
        return response
    }

    /// The sign-in form again, explaining why the attempt failed.
    private func refused(_ request: Request, _ failure: LoginService.Failure, next: String, username: String) throws -> Response {
        switch failure {
        case .invalidCredentials:
            let notice = Notice(kind: .error, text: "The user name or password is incorrect.")
            return try form(request, next: next, username: username, notice: notice, status: 401)
        case .suspended:
            let notice = Notice(kind: .error, text: "This account is suspended. Ask an administrator to reactivate it.")
            return try form(request, next: next, username: username, notice: notice, status: 403)
        case .throttled(let seconds):
            let minutes = max(1, (seconds + 59) / 60)
            let notice = Notice(
                kind: .error, text: "Too many failed sign-ins. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").")
            var response = try form(request, next: next, username: username, notice: notice, status: 429)
            response.headers["Retry-After"] = String(seconds)
            return response
        case .busy(let seconds):
            let notice = Notice(kind: .error, text: "Too many people are signing in right now. Please try again in a moment.")
            var response = try form(request, next: next, username: username, notice: notice, status: 503)
            response.headers["Retry-After"] = String(seconds)
            return response
        }
    }

    /// The sign-in page with the form token bound to the nonce cookie: the browser's
    /// current one (so two open sign-in tabs both work), or a new one after a refusal.
    private func form(_ request: Request, next: String, username: String, notice: Notice?, status: Int = 200) throws -> Response {
        let current = request.cookies[Cookies.loginNonce].flatMap { (1...64).contains($0.count) ? $0 : nil }
        let nonce = status == 200 ? current ?? SecureRandom.token() : SecureRandom.token()
        let content: [String: TemplateValue] = [
            "next": .string(next), "username": .string(username),
            "loginToken": .string(csrf.token(for: nonce, purpose: .login)),
        ]
        var page = Page("pages/login", title: "Sign in", area: nil, session: nil, content: content, status: status)
        page.notice = notice
        var response = try renderer.render(page)
        response.headers.add(name: "Set-Cookie", value: Cookies.set(Cookies.loginNonce, nonce, for: request))
        return response
    }
}
