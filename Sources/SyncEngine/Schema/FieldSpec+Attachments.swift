public import SyncProtocol

extension FieldSpec {
    /// The attachment ids `value` holds where this spec declares `attachment` fields (the field
    /// itself, its array items, its object's properties), in order of appearance.
    ///
    /// ```swift
    /// reports.fields["photos"]?.attachmentIds(in: ["att-1", "att-2"])   // ["att-1", "att-2"]
    /// ```
    public func attachmentIds(in value: JSONValue?) -> [String] {
        switch (type, value) {
        case (.attachment, .string(let id)?): [id]
        case (.array(let items?), .array(let elements)?): elements.flatMap { items.attachmentIds(in: $0) }
        case (.object(let properties?), .object(let members)?):
            properties.sorted { $0.key < $1.key }.flatMap { $0.value.attachmentIds(in: members[$0.key]) }
        default: []
        }
    }

    /// Whether values of this field can name attachments.
    public var holdsAttachments: Bool {
        switch type {
        case .attachment: true
        case .array(let items?): items.holdsAttachments
        case .object(let properties?): properties.values.contains { $0.holdsAttachments }
        default: false
        }
    }
}
