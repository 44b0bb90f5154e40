import SyncProtocol
import Templating

/// Both revisions of a conflict, field by field, and the resolution a posted form asks for.
///
/// The form offers a choice for every field whose values differ: the fields both sides
/// changed (the conflict proper) and the device's other edits, which a `manual` collection
/// also held back. Fields left on the server's side are simply not sent, so they keep
/// whatever the record holds when the resolution commits.
struct ConflictComparison {
    struct Row {
        let field: String
        let server: String
        let device: String
        /// The values differ, so the form asks which one to keep.
        let changed: Bool
        /// Both sides changed the field (listed in the entry's `fields`).
        let conflicting: Bool
        /// The value the device had before its edit, when known.
        let before: String?
        /// The server's value itself, for the photos it names.
        let serverValue: JSONValue
        /// The device's value itself, sent when the person takes it.
        let deviceValue: JSONValue

        /// The row for the page, with the photos each side names from `album`; `number` names the
        /// row's elements in the page: a field name may hold characters an HTML id cannot.
        func templateValue(number: Int, album: PhotoAlbum) -> TemplateValue {
            [
                "number": .string(String(number)), "field": .string(field), "server": .string(server), "device": .string(device),
                "changed": .bool(changed),
                "conflicting": .bool(conflicting), "before": before.map(TemplateValue.string) ?? .null,
                "input": .string(ConflictComparison.inputPrefix + field),
                "serverPhotos": album.gallery(field: field, value: serverValue), "devicePhotos": album.gallery(field: field, value: deviceValue),
            ]
        }
    }

    /// A form that cannot become a resolution, with what to tell the person.
    struct Problem: Error {
        let text: String
    }

    static let inputPrefix = "pick."

    let entry: ConflictEntry
    let rows: [Row]

    func templateRows(_ album: PhotoAlbum) -> TemplateValue {
        .array(rows.enumerated().map { number, row in row.templateValue(number: number, album: album) })
    }

    init(_ entry: ConflictEntry) {
        self.entry = entry
        let conflicts = Dictionary(entry.fields.map { ($0.field, $0) }, uniquingKeysWith: { first, _ in first })
        let names = Set(entry.serverRevision.keys).union(entry.deviceRevision.keys).union(conflicts.keys)
        rows = names.map { name in
            let server = entry.serverRevision[name] ?? conflicts[name]?.serverCurrent
            let device = entry.deviceRevision[name] ?? conflicts[name]?.clientNew
            return Row(
                field: name, server: ValueText.text(server), device: ValueText.text(device), changed: (server ?? .null) != (device ?? .null),
                conflicting: conflicts[name] != nil, before: conflicts[name].map { ValueText.text($0.clientOld) }, serverValue: server ?? .null,
                deviceValue: device ?? .null)
        }
        .sorted { ($0.conflicting ? 0 : $0.changed ? 1 : 2, $0.field) < ($1.conflicting ? 0 : $1.changed ? 1 : 2, $1.field) }
    }

    /// The request the posted `choice` (and, for `merge`, one `pick.<field>` per changed field) asks for.
    func request(from form: FormData) -> Result<ResolveRequest, Problem> {
        switch form["choice"] {
        case "server": return .success(ResolveRequest(choice: .server))
        case "device": return .success(ResolveRequest(choice: .device))
        case "merge": return merge(form)
        default: return .failure(Problem(text: "Choose how to resolve this conflict."))
        }
    }

    private func merge(_ form: FormData) -> Result<ResolveRequest, Problem> {
        let changed = rows.filter(\.changed)
        let unanswered = changed.filter { !["server", "device"].contains(form[Self.inputPrefix + $0.field]) }.map(\.field)
        guard unanswered.isEmpty else {
            return .failure(
                Problem(
                    text:
                        "Choose which version to keep for every highlighted field (missing: \(unanswered.joined(separator: ", "))). Nothing was changed."
                ))
        }
        let taken = changed.filter { form[Self.inputPrefix + $0.field] == "device" }
        // Keeping the server's value for every field is the "server" choice, recorded as such.
        guard !taken.isEmpty else { return .success(ResolveRequest(choice: .server)) }
        let values = Dictionary(uniqueKeysWithValues: taken.map { ($0.field, $0.deviceValue) })
        return .success(ResolveRequest(choice: .merge, fields: values))
    }

    /// How a recorded choice reads on the page.
    static func choiceText(_ choice: ResolutionChoice) -> String {
        switch choice {
        case .server: "Kept the server version"
        case .device: "Took the device version"
        case .merge: "Chose field by field"
        }
    }
}
