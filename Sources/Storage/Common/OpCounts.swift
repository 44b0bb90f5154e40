/// Reads `op_log_counts`, the op log's per (device, author, outcome) counts that the
/// migration's triggers keep in step with every write.
enum OpCounts {
    /// The four outcome columns `applied, deferred, rejected, conflict` of a grouped query.
    static let byStatus = """
        sum(ops) FILTER (WHERE status = 'applied')::bigint AS applied, sum(ops) FILTER (WHERE status = 'deferred')::bigint AS deferred,
        sum(ops) FILTER (WHERE status = 'rejected')::bigint AS rejected, sum(ops) FILTER (WHERE status = 'conflict')::bigint AS conflict
        """
}
