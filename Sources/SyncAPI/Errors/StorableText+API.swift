import SyncProtocol

extension APIError {
    /// 400 `VALIDATION_FAILED`: `field` holds U+0000, which the database cannot store.
    static func unstorableText(field: String) -> APIError {
        .validationFailed(field: field, "\(field) may not contain the character U+0000")
    }
}

extension StorableText {
    /// - Throws: ``APIError/unstorableText(field:)`` when `text` holds U+0000 (nil passes).
    static func require(_ text: String?, field: String) throws {
        guard isStorable(text ?? "") else { throw APIError.unstorableText(field: field) }
    }
}
