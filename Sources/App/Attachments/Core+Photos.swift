import Storage
import WebUI

extension Core {
    /// The photos records name, for the back-office pages that show records (history, conflicts).
    var recordPhotos: RecordPhotos {
        RecordPhotos(store: PostgresPhotoStore(database: database), schema: schema)
    }
}
