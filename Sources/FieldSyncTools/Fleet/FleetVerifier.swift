import Foundation
import SyncEngine
import SyncProtocol

/// Checks a fleet's day against what the server holds (its sync centre's op journal, its
/// records and its conflict queue): every op a device made arrived exactly once and ended as
/// expected, every record shows the day's last value, every collision is in the queue.
struct FleetVerifier {
    let journal: any SyncCentreStore
    let conflicts: any ConflictStore
    let day: FieldDay

    /// What the server showed.
    struct Verdict: Sendable {
        var devices = 0
        var opsExpected = 0
        var opsOnServer = 0
        /// Ops the server logged twice (one clientSeq or opId more than once).
        var duplicates = 0
        /// Ops of the day the server never logged.
        var missing = 0
        var applied = 0
        var conflicts = 0
        /// Ops that ended other than applied (or, for collisions, conflict).
        var unexpected = 0
        var recordsChecked = 0
        var recordsWrong = 0
        /// Photos named by the reports on the server (a report applies only once its photos
        /// are finalized: it depends on them).
        var photos = 0
        var conflictsExpected = 0
        var conflictsInQueue = 0
        /// The first few problems, described.
        var problems: [String] = []

        var lost: Int { missing + recordsWrong + (conflictsExpected - conflictsInQueue) }
        var isExact: Bool { lost == 0 && duplicates == 0 && unexpected == 0 }

        mutating func note(_ problem: String) {
            if problems.count < 10 { problems.append(problem) }
        }
    }

    func verify(_ devices: [FleetDevice], deviceIds: [String: String]) throws -> Verdict {
        var verdict = Verdict()
        for device in devices {
            verdict.devices += 1
            verdict.opsExpected += day.ops
            verdict.conflictsExpected += day.collisions
            guard let deviceId = deviceIds[device.name] else {
                verdict.missing += day.ops
                verdict.note("\(device.name) never reached the server")
                continue
            }
            try checkJournal(of: device, deviceId: deviceId, into: &verdict)
            try checkRecords(of: device, into: &verdict)
        }
        return verdict
    }

    /// One entry per clientSeq 1…ops, each applied except the collisions' conflicts.
    private func checkJournal(of device: FleetDevice, deviceId: String, into verdict: inout Verdict) throws {
        var seqs = Set<Int64>()
        var opIds = Set<String>()
        var collisionJobs = Set((0..<day.collisions).map { device.jobId($0 + 1) })
        try journal.forEachJournalBatch(deviceId: deviceId, status: nil) { entries in
            for entry in entries {
                verdict.opsOnServer += 1
                if !seqs.insert(entry.clientSeq).inserted || !opIds.insert(entry.opId).inserted { verdict.duplicates += 1 }
                let isCollision = entry.collection == "jobs" && entry.fieldNames == ["notes"] && collisionJobs.contains(entry.recordId)
                switch entry.status {
                case .applied: verdict.applied += 1
                case .conflict where isCollision:
                    verdict.conflicts += 1
                    collisionJobs.remove(entry.recordId)
                default:
                    verdict.unexpected += 1
                    verdict.note(
                        "\(device.name) op \(entry.clientSeq) on \(entry.collection)/\(entry.recordId) ended \(entry.status.rawValue) \(entry.code?.rawValue ?? "")"
                    )
                }
            }
        }
        let missing = (1...Int64(max(day.ops, 1))).filter { $0 <= day.ops && !seqs.contains($0) }
        verdict.missing += missing.count
        if let first = missing.first { verdict.note("\(device.name) clientSeq \(first) and \(missing.count - 1) more never arrived") }
    }

    /// Each record of the day with its last value; each colliding job flagged with an open conflict.
    private func checkRecords(of device: FleetDevice, into verdict: inout Verdict) throws {
        func check(_ collection: String, _ id: String, _ expected: (RecordSnapshot) -> Bool) throws {
            verdict.recordsChecked += 1
            guard let record = try journal.record(collection: collection, recordId: id, teamId: nil), !record.deleted, expected(record) else {
                verdict.recordsWrong += 1
                verdict.note("\(collection)/\(id) is missing or not as the device left it")
                return
            }
        }
        var lastUpdate: [Int: Int] = [:]
        for u in 1...max(day.statusUpdates, 1) where u <= day.statusUpdates { lastUpdate[device.statusJob(u, day)] = u }
        for k in 1...day.jobs {
            if k <= day.collisions {
                try check("jobs", device.jobId(k)) { record in
                    guard record.payload["notes"] == .string(FleetDevice.dispatcherNotes), let id = record.conflictId,
                        (try? conflicts.conflict(id: id))??.entry.state == .open
                    else { return false }
                    verdict.conflictsInQueue += 1
                    return true
                }
            } else if let u = lastUpdate[k] {
                try check("jobs", device.jobId(k)) {
                    $0.payload["labor_minutes"] == .int(Int64(u)) && $0.payload["status"] == .string(FleetDevice.status(u))
                }
            } else {
                try check("jobs", device.jobId(k)) { $0.payload["notes"] == "start" }
            }
        }
        for k in 1...max(day.visits, 1) where k <= day.visits {
            try check("visits", device.visitId(k)) { $0.payload["status"] == "done" }
        }
        for k in 1...max(day.reports, 1) where k <= day.reports {
            try check("reports", device.reportId(k)) { record in
                guard let photos = record.payload["photos"]?.arrayValue, photos.count == day.photosPerReport else { return false }
                verdict.photos += photos.count
                return true
            }
        }
        for k in 1...max(day.orders, 1) where k <= day.orders {
            try check("orders", device.orderId(k)) { $0.payload["status"] == "SUBMITTED" }
        }
    }
}
