/// The prepared statements of one connection, keyed by SQL text, with generated names.
///
/// Names are never reused within a connection, so forgetting a statement (after a stale plan) can
/// never collide with one still prepared on the server.
struct StatementCache {
    /// How many statements a connection keeps before they are all deallocated. Bounds server memory
    /// when callers assemble many distinct statements (multi-row `VALUES` lists of varying length).
    let capacity: Int
    private var names: [String: String] = [:]
    private var counter = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    var isFull: Bool { names.count >= capacity }

    func name(for sql: String) -> String? {
        names[sql]
    }

    /// A fresh statement name for `sql`; call `insert` once the server has prepared it.
    mutating func nextName() -> String {
        counter += 1
        return "fieldsync_\(counter)"
    }

    mutating func insert(_ name: String, for sql: String) {
        names[sql] = name
    }

    mutating func remove(_ sql: String) {
        names[sql] = nil
    }

    mutating func removeAll() {
        names.removeAll()
    }
}
