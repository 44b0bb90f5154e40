import SyncEngine
import SyncProtocol
import Testing

@Suite("Attachment ids in record values")
struct AttachmentFieldTests {
    @Test("The schema's attachment fields give their ids: a single one, array items, object properties; other fields none")
    func attachmentIds() throws {
        let schema = try Schema.builtIn()
        let photos = try #require(schema.collections["reports"]?.fields["photos"])
        #expect(photos.holdsAttachments)
        #expect(photos.attachmentIds(in: ["att-1", "att-2"]) == ["att-1", "att-2"])
        #expect(photos.attachmentIds(in: nil).isEmpty && photos.attachmentIds(in: "att-1").isEmpty)
        let photo = try #require(schema.collections["part_usage"]?.fields["photo"])
        #expect(photo.attachmentIds(in: "att-3") == ["att-3"])
        let nested = FieldSpec(type: .object(properties: ["before": FieldSpec(type: .attachment), "note": FieldSpec(type: .string)]))
        #expect(nested.holdsAttachments && nested.attachmentIds(in: ["before": "att-4", "note": "att-5"]) == ["att-4"])
        let answers = try #require(schema.collections["reports"]?.fields["answers"])
        #expect(!answers.holdsAttachments && answers.attachmentIds(in: ["q1": "att-6"]).isEmpty)
    }
}
