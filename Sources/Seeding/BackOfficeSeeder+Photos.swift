import Postgres

extension BackOfficeSeeder {
    /// Gives `count` seeded reports (spread over the data) three photos each, as devices would
    /// have sent them: one finished with the stored blob `sha256`, one still uploading, one
    /// never uploaded. The blob's bytes must already be in the blob store.
    /// - Returns: The reports' record ids and the server ids of their finished photos.
    public func seedPhotos(blob sha256: String, size: Int, contentType: String, count: Int) throws -> (recordIds: [String], photoIds: [String]) {
        try database.withTransaction { connection in
            try connection.execute(
                "INSERT INTO blobs (sha256, size, content_type) VALUES (\(sha256), \(size), \(contentType)) ON CONFLICT DO NOTHING")
            try connection.execute(
                """
                WITH picked AS (
                  SELECT record_id, substring(user_scope from 6) AS user_id FROM records
                  WHERE collection = 'reports' AND deleted_seq IS NULL AND user_scope LIKE 'user:%'
                  ORDER BY md5(record_id) LIMIT \(count)),
                photos AS (
                  SELECT record_id, user_id, 'photo-' || record_id || '-' || n AS att_id, n = 1 AS finished
                  FROM picked CROSS JOIN generate_series(1, 2) n),
                registered AS (
                  INSERT INTO attachments (id, device_id, att_id, user_id, collection, record_id, content_type, total_bytes, chunk_bytes,
                                           chunk_count, sha256, status, blob_sha256, expires_at, completed_at)
                  SELECT gen_random_uuid(), 'bench-camera', att_id, user_id, 'reports', record_id, \(contentType), \(size), 65536, 1,
                         \(sha256), CASE WHEN finished THEN 'complete' ELSE 'uploading' END, CASE WHEN finished THEN \(sha256) END,
                         CASE WHEN finished THEN NULL ELSE now() + interval '1 day' END, CASE WHEN finished THEN now() END
                  FROM photos)
                UPDATE records r SET payload = r.payload || jsonb_build_object('photos', jsonb_build_array(
                         'photo-' || r.record_id || '-1', 'photo-' || r.record_id || '-2', 'photo-' || r.record_id || '-lost'))
                FROM picked WHERE r.collection = 'reports' AND r.record_id = picked.record_id
                """)
            let rows = try connection.query(
                "SELECT record_id, id::text FROM attachments WHERE device_id = 'bench-camera' AND status = 'complete' ORDER BY record_id")
            return (try rows.map { try $0.decode(0) }, try rows.map { try $0.decode(1) })
        }
    }
}
