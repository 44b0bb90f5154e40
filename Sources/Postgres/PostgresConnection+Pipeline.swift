import CLibPQ
import Support

extension PostgresConnection {
    /// Runs `queries` in order in one round trip (libpq pipeline mode) and returns each one's rows.
    ///
    /// The server runs the statements one after another exactly as if they were sent one at a
    /// time (each sees the effects and locks of the ones before it); only the waits between them
    /// are saved. Statements not prepared on this connection yet are prepared in the same trip.
    /// ```swift
    /// try connection.transaction { db in
    ///     try db.pipeline(["INSERT INTO teams (id) VALUES (\(a))", "INSERT INTO teams (id) VALUES (\(b))"])
    /// }
    /// ```
    /// - Throws: the first failing statement's `PostgresError`. The statements after it do not run
    ///   and, inside a transaction, the transaction is aborted like after any failed statement.
    @discardableResult
    public func pipeline(_ queries: [PostgresQuery]) throws -> [[PostgresRow]] {
        try runPipeline(queries).map { $0.rows() }
    }

    /// Queues statements whose results nobody reads: they run, in order, in the round trip of
    /// the transaction's next statement or of its commit, so a transaction's last writes cost
    /// no trip of their own. Outside a transaction they run at once.
    ///
    /// A failure surfaces from that next call (or the commit), which then throws it; a rollback
    /// drops what is still queued.
    public func enqueue(_ queries: [PostgresQuery]) throws {
        guard isInTransaction else {
            _ = try runPipeline(queries)
            return
        }
        queued += queries
    }

    /// The queued statements followed by `queries`, in one round trip; the results of `queries`.
    ///
    /// `afterwards` follow in the same trip, run only when everything before them succeeded, and
    /// their own failure is logged instead of thrown: statements after a `COMMIT`, whose outcome
    /// must not be taken for the commit's (``enqueueAfterCommit(_:)``).
    func runPipeline(_ queries: [PostgresQuery], afterwards: [PostgresQuery] = []) throws -> [QueryResult] {
        let all = queued + queries
        guard !all.isEmpty else { return [] }
        // A refusal before anything is sent keeps the queue: a transaction that goes on after
        // catching the error must not lose its queued writes. Once sent, a failure aborts it.
        for query in all + afterwards { try Self.checkBinds(query) }
        let connection = try openHandle(sql: all[0].sql)
        guard all.count > 1 || !afterwards.isEmpty else {
            queued = []
            return [try run(all[0])]
        }
        guard PQenterPipelineMode(connection) == 1 else { throw PostgresError(connection: connection, sql: all[0].sql) }
        queued = []
        let steps = send(all, then: afterwards, on: connection)
        let outcome = collect(steps, on: connection)
        if let later = outcome.laterError {
            logger.warning("postgres statement after the pipeline's own failed", metadata: ["db.error": "\(later)"])
        }
        // Leaving pipeline mode only fails while results are unread, i.e. when the connection broke.
        guard PQexitPipelineMode(connection) == 1 else { throw outcome.error ?? PostgresError(connection: connection, sql: nil) }
        if let error = outcome.error { throw error }
        return Array(outcome.results.suffix(queries.count))
    }

    /// Queues a prepare (when needed) and an execution per query, the `afterwards` ones marked
    /// as such, then the sync point. A failed send leaves the remaining steps out; `collect`
    /// reports the connection's error.
    private func send(_ queries: [PostgresQuery], then afterwards: [PostgresQuery], on connection: OpaquePointer) -> [PipelineStep] {
        var steps: [PipelineStep] = []
        var preparedHere: [String: String] = [:]
        for (index, query) in (queries + afterwards).enumerated() {
            logger.trace("postgres pipelined query", metadata: ["db.query": query.sql])
            guard sendOne(query, afterwards: index >= queries.count, on: connection, into: &steps, preparedHere: &preparedHere) else {
                return steps + [.failedSend(query.sql)]
            }
        }
        return PQpipelineSync(connection) == 1 ? steps : steps + [.failedSend(nil)]
    }

    /// Queues `query`, preceded by its prepare when this connection has not prepared it yet, its
    /// steps marked `afterwards` when asked; false when libpq refused to queue something.
    private func sendOne(
        _ query: PostgresQuery, afterwards: Bool, on connection: OpaquePointer, into steps: inout [PipelineStep],
        preparedHere: inout [String: String]
    ) -> Bool {
        let sent: Int32
        if query.plansPerRun {
            sent = withCStringArray(query.binds) { values in
                PQsendQueryParams(connection, query.sql, Int32(query.binds.count), nil, values, nil, nil, 0)
            }
        } else {
            var name = statements.name(for: query.sql) ?? preparedHere[query.sql]
            if name == nil {
                let fresh = statements.nextName()
                // nParams 0 and no type OIDs, as in `prepare`: the server infers the parameter types.
                guard PQsendPrepare(connection, fresh, query.sql, 0, nil) == 1 else { return false }
                steps.append(.prepare(name: fresh, sql: query.sql, afterwards: afterwards))
                preparedHere[query.sql] = fresh
                name = fresh
            }
            sent = withCStringArray(query.binds) { values in
                PQsendQueryPrepared(connection, name, Int32(query.binds.count), values, nil, nil, 0)
            }
        }
        guard sent == 1 else { return false }
        steps.append(.execute(sql: query.sql, afterwards: afterwards))
        return true
    }

    /// Reads every step's result up to the sync point, keeping the results of the executions not
    /// marked `afterwards`, the first error among them and the first among the marked ones.
    private func collect(_ steps: [PipelineStep], on connection: OpaquePointer) -> PipelineOutcome {
        var outcome = PipelineOutcome()
        for step in steps {
            if case .failedSend(let sql) = step {
                outcome.error = outcome.error ?? PostgresError(connection: connection, sql: sql)
                return outcome
            }
            // > PQgetResult: … returns a null pointer once the command is complete; in pipeline mode
            // > the next call then starts on the next command's results.
            guard let raw = PQgetResult(connection) else {
                outcome.error = outcome.error ?? PostgresError(connection: connection, sql: step.sql)
                return outcome
            }
            let result = QueryResult(raw)
            while let extra = PQgetResult(connection) { PQclear(extra) }
            switch (result.status, step) {
            case (PGRES_COMMAND_OK, .prepare(let name, let sql, _)):
                statements.insert(name, for: sql)
            case (PGRES_COMMAND_OK, .execute(_, false)), (PGRES_TUPLES_OK, .execute(_, false)), (PGRES_EMPTY_QUERY, .execute(_, false)):
                outcome.results.append(result)
            case (PGRES_COMMAND_OK, _), (PGRES_TUPLES_OK, _), (PGRES_EMPTY_QUERY, _), (PGRES_PIPELINE_ABORTED, _):
                continue
            default:
                let error = PostgresError(result: result, connection: connection, sql: step.sql)
                if error.isStalePlan, let sql = step.sql { statements.remove(sql) }
                if step.isAfterwards {
                    outcome.laterError = outcome.laterError ?? error
                } else {
                    outcome.error = outcome.error ?? error
                }
            }
        }
        guard let sync = PQgetResult(connection), QueryResult(sync).status == PGRES_PIPELINE_SYNC else {
            outcome.error = outcome.error ?? PostgresError(connection: connection, sql: nil)
            return outcome
        }
        return outcome
    }
}

/// What `collect` read: the results of the executions, the first error among them, and the
/// first error of the statements sent afterwards (``PostgresConnection/runPipeline(_:afterwards:)``).
private struct PipelineOutcome {
    var results: [QueryResult] = []
    var error: PostgresError?
    var laterError: PostgresError?
}

/// One command queued in a pipeline, in the order its result arrives; `afterwards` marks those
/// of statements whose failure is not the pipeline's.
private enum PipelineStep {
    case prepare(name: String, sql: String, afterwards: Bool)
    case execute(sql: String, afterwards: Bool)
    /// libpq refused to queue a command (the connection failed); nothing after it was sent.
    case failedSend(String?)

    var sql: String? {
        switch self {
        case .prepare(_, let sql, _), .execute(let sql, _): sql
        case .failedSend(let sql): sql
        }
    }

    var isAfterwards: Bool {
        switch self {
        case .prepare(_, _, let afterwards), .execute(_, let afterwards): afterwards
        case .failedSend: false
        }
    }
}
