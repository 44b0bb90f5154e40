/// One pass of retention over some rules, in bounded batches each committed on its own.
///
/// What a rule deletes is decided by age alone, so a pass stopped half-way (the process
/// died) is resumed by the next: it finds exactly the rows still past their cutoff, never
/// redoing a deleted batch nor skipping a row.
///
/// ```swift
/// let pass = RetentionPass(store: store, rules: [.opResults, .tombstones])
/// let report = try pass.run(cutoffs) { report, total in print("\(report.total) of \(total)") }
/// ```
public struct RetentionPass: Sendable {
    public let store: any RetentionStore
    public let rules: [RetentionRule]
    public let batchSize: Int

    public init(store: any RetentionStore, rules: [RetentionRule], batchSize: Int = 5_000) {
        precondition(batchSize > 0, "a retention batch deletes at least one row")
        self.store = store
        self.rules = rules
        self.batchSize = batchSize
    }

    /// What a pass would delete now, per rule.
    public func pending(_ cutoffs: RetentionCutoffs) throws -> RetentionReport {
        var pending = RetentionReport()
        for rule in rules { pending[rule] = try store.count(rule, cutoffs) }
        return pending
    }

    /// Deletes, rule after rule, batch after batch, until nothing past its cutoff is left.
    /// - Parameter progress: Called after each batch with what was deleted so far and the
    ///   total counted at the start (rows that age past a cutoff meanwhile are deleted too).
    public func run(_ cutoffs: RetentionCutoffs, progress: (RetentionReport, _ total: Int) throws -> Void) throws -> RetentionReport {
        let total = try pending(cutoffs).total
        var report = RetentionReport()
        for rule in rules {
            report[rule] = 0
            while true {
                let deleted = try store.delete(rule, cutoffs, limit: batchSize)
                report[rule] += deleted
                if deleted > 0 { try progress(report, max(total, report.total)) }
                if deleted < batchSize { break }
            }
        }
        return report
    }
}
