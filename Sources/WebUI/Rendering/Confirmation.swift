import Templating

/// The "Are you sure?" page before a destructive action: it explains what will happen
/// and posts the action's form only when the person confirms. Works without JavaScript.
struct Confirmation {
    var title: String
    var question: String
    /// What will happen, one consequence per line.
    var consequences: [String]
    /// Where the confirming form posts.
    var action: String
    var confirmLabel: String
    /// Where "Cancel" leads.
    var cancelPath: String
    /// Hidden fields posted with the confirmation.
    var hidden: [String: String] = [:]
    /// Hidden fields sent once per value (the ids of a selection), in order.
    var hiddenLists: [String: [String]] = [:]
    /// What the action applies to, one line each: `name` (an id) and a `detail`.
    var items: [(name: String, detail: String)] = []

    func page(area: Area, session: WebSession) -> Page {
        let content: [String: TemplateValue] = [
            "heading": .string(title), "question": .string(question),
            "consequences": .array(consequences.map(TemplateValue.string)),
            "action": .string(action), "confirmLabel": .string(confirmLabel), "cancelPath": .string(cancelPath),
            "hidden": .array(
                (hidden.map { ($0.key, [$0.value]) } + hiddenLists.map { ($0.key, $0.value) }).sorted { $0.0 < $1.0 }.flatMap { name, values in
                    values.map { ["name": .string(name), "value": .string($0)] as TemplateValue }
                }),
            "items": .array(items.map { ["name": .string($0.name), "detail": .string($0.detail)] }), "hasItems": .bool(!items.isEmpty),
        ]
        return Page("pages/confirm", title: title, area: area, session: session, content: content)
    }
}
