import HTTP
import SyncProtocol

extension HTTPError {
    /// 400 `VALIDATION_FAILED`: `field` holds U+0000, which the database cannot store.
    static func unstorableText(field: String) -> HTTPError {
        .validationFailed(field: field, message: "\(field) may not contain the character U+0000")
    }
}

extension StorableText {
    /// - Throws: ``HTTPError/unstorableText(field:)`` when `text` holds U+0000 (nil passes).
    static func require(_ text: String?, field: String) throws {
        guard isStorable(text ?? "") else { throw HTTPError.unstorableText(field: field) }
    }
}
