import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// `GET /admin/search?q=`: records, devices, users and orders matching what was typed in the
/// header's search box, grouped by kind, each linking to its page. A viewer finds only the
/// kinds whose pages their role may open, and a supervisor only their team's.
struct SearchPage {
    let store: any SearchStore
    let renderer: PageRenderer

    /// Hits shown per kind; one more is asked for, to tell that there are more.
    static let limit = 10

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Area.search.path, area: .search, handler: show)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let raw = context.request.query["q"] ?? ""
        var content: [String: TemplateValue] = ["searchQuery": .string(Self.echo(raw))]
        var status = 200
        switch SearchTerm.parse(raw) {
        case .failure(.empty):
            content["prompt"] = true
        case .failure(let problem):
            content["problem"] = .string(Self.text(of: problem))
            status = 400
        case .success(let term):
            content["term"] = .string(term.text)
            content["groups"] = .array(try groups(for: term, session: context.session))
        }
        return try renderer.render(
            Page("pages/search", title: "Search", area: .search, session: context.session, content: content, status: status))
    }

    /// The viewer's kinds in a fixed order, each with its hits (an empty kind says so).
    private func groups(for term: SearchTerm, session: WebSession) throws -> [TemplateValue] {
        let scope = TeamScope(session)
        let kinds = SearchKind.all.filter { $0.link(for: session.user.role) != nil && renderer.isAvailable($0.area(for: session.user.role)) }
        let hits = scope.blocked ? [] : try store.search(term, kinds: Set(kinds.map(\.kind)), teamId: scope.teamId, limit: Self.limit + 1)
        return kinds.map { kind in
            let found = hits.filter { $0.kind == kind.kind }
            let link = kind.link(for: session.user.role)
            return [
                "heading": .string(kind.heading), "id": .string("search-\(kind.kind.rawValue)"),
                "hits": .array(
                    found.prefix(Self.limit).map { hit in
                        [
                            "path": link.map { .string($0(hit)) } ?? .null, "title": .string(kind.title(hit)),
                            "detail": kind.detail(hit).map(TemplateValue.string) ?? .null,
                        ]
                    }),
                "none": found.isEmpty ? .string("No \(kind.heading.lowercased()) match.") : .null, "more": .bool(found.count > Self.limit),
                "count": .string(found.count > Self.limit ? "\(Self.limit)+" : Formatting.count(found.count)),
            ]
        }
    }

    /// What the box shows back: the first characters of the text, without control characters.
    static func echo(_ raw: String) -> String {
        String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0.properties.generalCategory != .control }).prefix(SearchTerm.maximumLength))
    }

    static func text(of problem: SearchTerm.Problem) -> String {
        switch problem {
        case .empty: "Type an id or a name to search for."
        case .tooLong: "Search for at most \(SearchTerm.maximumLength) characters: the start of an id or part of a name is enough."
        case .controlCharacters: "The search text contains control characters (such as tabs or line breaks inside it). Type it again without them."
        }
    }
}

extension Area {
    /// `/admin/search`: the header's search box leads here; not a navigation entry.
    public static let search = Area(
        path: "/admin/search", title: "Search", access: [.admin: .view, .dispatcher: .view, .supervisor: .view], inNavigation: false)
}

extension BackOfficePages {
    /// Adds the search page and, on every page, the search box in the header.
    public func addSearchPage(store: any SearchStore) {
        SearchPage(store: store, renderer: renderer).register(on: self)
    }
}
