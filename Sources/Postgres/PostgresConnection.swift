import CLibPQ
public import Support

/// One PostgreSQL session: owns a `PGconn` and closes it with `PQfinish`.
///
/// Every call blocks the calling thread until the server answers, so use a connection from a worker
/// thread, never from Swift's cooperative pool, and from one thread at a time (the pool hands each
/// connection to one caller). Queries go through `PQprepare`/`PQexecPrepared`, with statements
/// prepared once per connection and reused by SQL text.
///
/// ```swift
/// let connection = try PostgresConnection(configuration: configuration, logger: logger)
/// defer { connection.close() }
/// let rows = try connection.query("SELECT name FROM devices WHERE team_id = \(teamID)")
/// ```
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// Statements prepared on this session, by SQL text (shared with pipelines).
    var statements = StatementCache()
    /// Statements waiting to go out with the next round trip (``enqueue(_:)``, a pending `BEGIN`).
    var queued: [PostgresQuery] = []
    /// Statements to run once the transaction commits, in the commit's round trip
    /// (``enqueueAfterCommit(_:)``).
    var afterCommit: [PostgresQuery] = []
    /// Kept alive as long as `handle`, because libpq calls back into it for every notice.
    private let notices: NoticeSink
    let logger: Logger
    /// How many savepoints are open, to name the next one.
    var savepointDepth = 0

    /// Connects and waits until the session is ready.
    /// - Throws: `PostgresError(.connectionFailed)` with libpq's reason.
    public init(configuration: PostgresConfiguration, logger: Logger) throws {
        self.logger = logger
        notices = NoticeSink(logger: logger)
        let pairs = configuration.connectionKeywords
        // > PQconnectdbParams: keywords and values are NULL-terminated arrays … Note that this function
        // > always returns a non-null object pointer, unless perhaps there is too little memory.
        let raw = withCStringArray(pairs.map(\.0) + [nil]) { keywords in
            withCStringArray(pairs.map(\.1) + [nil]) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let raw else { throw PostgresError(code: .client, message: "libpq could not allocate a connection") }
        guard PQstatus(raw) == CONNECTION_OK else {
            // A failed connect still allocated the PGconn; free it before reporting why.
            let error = PostgresError(code: .connectionFailed, message: PostgresError(connection: raw, sql: nil).message)
            PQfinish(raw)
            throw error
        }
        handle = raw
        // Route server notices (e.g. "relation already exists, skipping") to the logger instead of stderr.
        PQsetNoticeReceiver(
            raw,
            { context, result in
                guard let context, let result else { return }
                let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
                sink.logger.debug("postgres notice", metadata: ["db.notice": String(cString: PQresultErrorMessage(result))])
            }, Unmanaged.passUnretained(notices).toOpaque())
        logger.debug("postgres connection opened", metadata: ["db.server": configuration.description])
    }

    deinit {
        close()
    }

    /// Runs a statement and returns its rows.
    /// - Throws: `PostgresError` with the server's SQLSTATE and fields.
    @discardableResult
    public func query(_ query: PostgresQuery) throws -> [PostgresRow] {
        try runPipeline([query])[0].rows()
    }

    /// Runs a statement and returns how many rows it inserted, updated, deleted or selected.
    /// - Throws: `PostgresError` with the server's SQLSTATE and fields.
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        try runPipeline([query])[0].affectedRows
    }

    /// Runs one or more `;`-separated statements with the simple-query protocol (no binds, nothing
    /// prepared): for migrations and session commands.
    /// - Throws: `PostgresError` for the first statement that fails.
    public func executeScript(_ sql: String) throws {
        let connection = try openHandle(sql: sql)
        // The simple-query protocol cannot join a pipeline: queued statements go first, alone.
        _ = try runPipeline([])
        logger.trace("postgres script", metadata: ["db.query": sql])
        _ = try PostgresError.check(PQexec(connection, sql), connection: connection, sql: sql)
    }

    /// Whether the session is closed or lost. Reads pending input without blocking, so a backend the
    /// server has terminated is noticed here, before the next query fails.
    public var isBroken: Bool {
        guard let handle else { return true }
        // libpq always keeps its socket in non-blocking mode and waits with poll() itself, so
        // PQconsumeInput only takes what has arrived. The second call sees the EOF that follows a
        // termination message.
        for _ in 0..<2 where PQconsumeInput(handle) == 0 {
            return true
        }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// The server's view of the session: idle, in a transaction, or in a failed transaction.
    var transactionStatus: PGTransactionStatusType {
        handle.map(PQtransactionStatus) ?? PQTRANS_UNKNOWN
    }

    /// Whether a transaction is open, counting one whose `BEGIN` is still queued.
    var isInTransaction: Bool {
        transactionStatus != PQTRANS_IDLE || !queued.isEmpty
    }

    /// Closes the session; later calls throw `.connectionFailed`. Closing twice is harmless.
    public func close() {
        guard let handle else { return }
        PQfinish(handle)
        self.handle = nil
        statements.removeAll()
        queued.removeAll()
    }

    /// The open `PGconn`, for the few operations that need it directly (LISTEN/NOTIFY).
    func openHandle(sql: String? = nil) throws -> OpaquePointer {
        guard let handle else {
            throw PostgresError(code: .connectionFailed, message: "the connection is closed", sql: sql)
        }
        return handle
    }

    // MARK: - Prepared execution

    func run(_ query: PostgresQuery) throws -> QueryResult {
        let connection = try openHandle(sql: query.sql)
        try Self.checkBinds(query)
        logger.trace("postgres query", metadata: ["db.query": query.sql])
        if query.plansPerRun {
            let raw = withCStringArray(query.binds) { values in
                PQexecParams(connection, query.sql, Int32(query.binds.count), nil, values, nil, nil, 0)
            }
            return try PostgresError.check(raw, connection: connection, sql: query.sql)
        }
        do {
            return try execute(prepared: try prepare(query.sql, on: connection), binds: query.binds, sql: query.sql, on: connection)
        } catch let error as PostgresError where error.isStalePlan {
            // A schema change altered the statement's result columns. Forget it; re-preparing is only
            // possible now if no transaction was aborted by the failure.
            statements.remove(query.sql)
            guard transactionStatus == PQTRANS_IDLE else { throw error }
            return try execute(prepared: try prepare(query.sql, on: connection), binds: query.binds, sql: query.sql, on: connection)
        }
    }

    /// libpq takes NUL-terminated strings, so a NUL inside a value would silently cut it short.
    static func checkBinds(_ query: PostgresQuery) throws {
        if query.binds.contains(where: { $0.map(containsNUL) == true }) {
            throw PostgresError(code: .encoding, message: "a bind value contains a NUL character", sql: query.sql)
        }
    }

    /// Scanned as one buffer: a push's bind values run to hundreds of kilobytes, and through
    /// `String.UTF8View` each byte costs a call.
    private static func containsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(0) }
    }

    private func prepare(_ sql: String, on connection: OpaquePointer) throws -> String {
        if let name = statements.name(for: sql) { return name }
        if statements.isFull, transactionStatus == PQTRANS_IDLE {
            try executeScript("DEALLOCATE ALL")
            statements.removeAll()
        }
        let name = statements.nextName()
        // nParams 0 and no type OIDs: the server infers each parameter's type from the statement.
        _ = try PostgresError.check(PQprepare(connection, name, sql, 0, nil), connection: connection, sql: sql)
        statements.insert(name, for: sql)
        return name
    }

    private func execute(prepared name: String, binds: [String?], sql: String, on connection: OpaquePointer) throws -> QueryResult {
        // Text format throughout: lengths and formats may be NULL, and resultFormat 0 asks for text.
        let raw = withCStringArray(binds) { values in
            PQexecPrepared(connection, name, Int32(binds.count), values, nil, nil, 0)
        }
        return try PostgresError.check(raw, connection: connection, sql: sql)
    }
}

extension PostgresError {
    /// "cached plan must not change result type": a prepared statement outlived a schema change.
    var isStalePlan: Bool {
        code == .featureNotSupported && message.contains("cached plan must not change result type")
    }
}

/// The context libpq's notice callback receives.
private final class NoticeSink {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }
}
