import Templating

/// One page to render: a template that extends `layout`, and the data it shows.
struct Page {
    /// The template's name, e.g. `pages/users`.
    var template: String
    /// The window title (the product name is appended).
    var title: String
    /// The area highlighted in the navigation.
    var area: Area?
    /// The signed-in viewer; nil on the sign-in and anonymous error pages.
    var session: WebSession?
    /// The page's own values; the layout's values are added next to them.
    var content: [String: TemplateValue]
    var status = 200
    /// A message shown above the content, e.g. after a form was saved.
    var notice: Notice?

    init(_ template: String, title: String, area: Area?, session: WebSession?, content: [String: TemplateValue], status: Int = 200) {
        self.template = template
        self.title = title
        self.area = area
        self.session = session
        self.content = content
        self.status = status
    }
}

/// A one-line message above a page's content.
struct Notice: Sendable, Equatable {
    enum Kind: String, Sendable {
        case success, info, error
    }

    var kind: Kind
    var text: String

    var templateValue: TemplateValue {
        ["kind": .string(kind.rawValue), "text": .string(text)]
    }
}
