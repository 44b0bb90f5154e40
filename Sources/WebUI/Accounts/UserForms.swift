import SyncProtocol

/// What a password must be before the back-office stores its hash.
enum PasswordRules {
    static let minimumLength = 10
    static let maximumLength = 256

    /// What is wrong with `password`, or nil when it may be used.
    static func problem(_ password: String) -> String? {
        if password.count < minimumLength { return "Use at least \(minimumLength) characters." }
        if password.count > maximumLength { return "Use at most \(maximumLength) characters." }
        return nil
    }

    /// What is wrong with a new password typed twice, or nil.
    static func problem(_ password: String, repeated: String) -> String? {
        problem(password) ?? (password == repeated ? nil : "The two passwords are not the same.")
    }
}

/// The "new user" form: posted values, kept for redisplay, and what is wrong with them.
///
/// The user name's own rules (characters, uniqueness) are the account store's; its
/// refusals are added with `reject(username:)`.
struct NewUserForm {
    static let maximumTeamLength = 64

    var username = ""
    var role = ""
    var team = ""
    /// Never shown again once posted.
    private var password = ""
    private(set) var errors: [String: String] = [:]

    init() {}

    init(_ form: FormData) {
        username = form.trimmed("username")
        role = form.trimmed("role")
        team = form.trimmed("team")
        password = form["password"] ?? ""
    }

    /// The validated values, or nil with `errors` filled in.
    mutating func validated() -> (username: String, role: Role, teamId: String?, password: String)? {
        errors = [:]
        if username.isEmpty { errors["username"] = "Enter a user name." }
        let chosen = Role(rawValue: role)
        if chosen == nil { errors["role"] = "Choose a role." }
        if team.count > Self.maximumTeamLength { errors["team"] = "Use at most \(Self.maximumTeamLength) characters." }
        if let problem = PasswordRules.problem(password) { errors["password"] = problem }
        guard errors.isEmpty, let chosen else { return nil }
        return (username, chosen, team.isEmpty ? nil : team, password)
    }

    /// Records the account store's refusal of the user name.
    mutating func reject(username message: String) {
        errors["username"] = message
    }
}
