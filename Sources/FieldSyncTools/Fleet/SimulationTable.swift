import Foundation

/// The summary `simulate` prints: the day, the phases' times, the server's verdict.
struct SimulationTable {
    let report: Simulation.Report

    var text: String {
        let day = report.day
        let verdict = report.verdict
        let outcome = report.outcome
        let network = outcome.network
        var lines = [
            "",
            "FieldSync fleet simulation: \(report.devices) devices, at most \(report.concurrency) at once",
            "day per device: \(day.jobs) jobs, \(day.visits) visits, \(day.reports) reports with \(day.photos) photos of \(day.photoBytes) B, "
                + "\(day.orders) orders, \(day.statusUpdates) status updates, \(day.collisions) collisions = \(day.ops) ops",
            "",
            row("phase", "seconds"),
            row("morning (sign-in, jobs)", String(format: "%.1f", outcome.morningSeconds)),
            row("field work, offline", String(format: "%.1f", outcome.fieldWorkSeconds)),
            row("sync after the network returns", String(format: "%.1f", outcome.drainSeconds)),
            "",
            row("check", "expected", "on server"),
            row("ops, each exactly once", "\(verdict.opsExpected)", "\(verdict.opsOnServer)"),
            row("  applied", "\(verdict.opsExpected - verdict.conflictsExpected)", "\(verdict.applied)"),
            row("  conflicts (collisions)", "\(verdict.conflictsExpected)", "\(verdict.conflicts)"),
            row("  duplicates", "0", "\(verdict.duplicates)"),
            row("  missing", "0", "\(verdict.missing)"),
            row("  other outcomes", "0", "\(verdict.unexpected)"),
            row("records as the device left them", "\(verdict.recordsChecked)", "\(verdict.recordsChecked - verdict.recordsWrong)"),
            row("open conflicts in the queue", "\(verdict.conflictsExpected)", "\(verdict.conflictsInQueue)"),
            row("photos in applied reports", "\(report.devices * day.photos)", "\(verdict.photos)"),
            "",
            String(
                format: "network: %d requests (%d failed), %.1f MB up, %.1f MB down; chunks sent again %d, photos restarted from zero %d",
                network.requests, network.failedRequests, Double(network.bytesSent) / 1e6, Double(network.bytesReceived) / 1e6,
                network.chunksResent, network.photosRestarted),
        ]
        if let memory = report.memory {
            let scope = report.serverMemory == nil && report.serverInProcess ? "server and devices in one process" : "the devices' process"
            lines.append(String(format: "memory: resident %.0f MiB now, %.0f MiB at peak (%@)", memory.now, memory.peak, scope))
        }
        if let memory = report.serverMemory {
            lines.append(String(format: "server memory: resident %.0f MiB now, %.0f MiB at peak (its own process)", memory.now, memory.peak))
        }
        lines += outcome.failures.prefix(10).map { "device failure: \($0)" } + verdict.problems.map { "problem: \($0)" }
        lines.append(
            verdict.isExact && outcome.failures.isEmpty
                ? "result: every intent exactly once, nothing lost"
                : "result: LOSS — \(verdict.lost) lost, \(verdict.duplicates) duplicated, \(verdict.unexpected) unexpected, \(outcome.failures.count) devices failed"
        )
        return lines.joined(separator: "\n")
    }

    private func row(_ columns: String...) -> String {
        columns.enumerated().map { index, text in
            index == 0 ? text.padding(toLength: 34, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 10 - text.count)) + text
        }.joined()
    }
}
