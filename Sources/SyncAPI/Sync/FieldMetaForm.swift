/// How a pull page writes each upsert's `fieldMeta` (PROTOCOL.md, Pull): chosen by the
/// device with `fieldMeta=compact`; the full form stays the default for existing devices.
enum FieldMetaForm: Sendable {
    /// `{"field": {"seq": 20714, "opId": "…", "deviceId": "…"}}`
    case full
    /// `{"field": [20714, 0]}`, the op and device named once per page in `fieldMetaOps[0]`.
    case compact

    /// The form named by the `fieldMeta` query parameter; `full` when absent.
    /// - Throws: `APIError.validationFailed` for any other value.
    static func parse(_ text: String?) throws -> FieldMetaForm {
        switch text {
        case nil, "full": return .full
        case "compact": return .compact
        default: throw APIError.validationFailed(field: "fieldMeta", "fieldMeta must be full or compact")
        }
    }
}
