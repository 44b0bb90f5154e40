import Postgres
import Storage
import SyncEngine
import SyncEngineTesting
import Testing

/// The job locks port, on the in-memory locks and on PostgreSQL advisory locks.
@Suite("Job locks contract")
struct JobLocksContractTests {
    private func locks(_ implementation: Implementation) throws -> (any JobLocks, PostgresClient?) {
        let database = try implementation.database()
        return (database.map { PostgresJobLocks(database: $0) } ?? InMemoryJobLocks(), database)
    }

    struct Failure: Error {}

    @Test(
        "a held lock refuses a second holder of the same name, not another name, and is free again after the body returns or throws",
        arguments: Implementation.allCases)
    func exclusion(_ implementation: Implementation) throws {
        let (locks, database) = try locks(implementation)
        defer { database?.shutdown() }
        let inner = try locks.whileHolding("retention") {
            (same: try locks.whileHolding("retention") { "ran" }, other: try locks.whileHolding("attachments") { "ran" })
        }
        #expect(inner?.same == nil && inner?.other == "ran")
        #expect(try locks.whileHolding("retention") { 1 } == 1)
        #expect(throws: Failure.self) { try locks.whileHolding("retention") { throw Failure() } }
        #expect(try locks.whileHolding("retention") { 2 } == 2)
    }
}
