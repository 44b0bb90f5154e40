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

    func page(area: Area, session: WebSession) -> Page {
        let content: [String: TemplateValue] = [
            "heading": .string(title), "question": .string(question),
            "consequences": .array(consequences.map(TemplateValue.string)),
            "action": .string(action), "confirmLabel": .string(confirmLabel), "cancelPath": .string(cancelPath),
            "hidden": .array(hidden.sorted { $0.key < $1.key }.map { ["name": .string($0.key), "value": .string($0.value)] }),
        ]
        return Page("pages/confirm", title: title, area: area, session: session, content: content)
    }
}
