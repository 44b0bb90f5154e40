import Foundation

/// CPU seconds (user + system) spent by the benchmark's own process and by its PostgreSQL,
/// read from `/proc`, so a run can report what 1,000 ops cost the server and the database
/// rather than only how long they took.
struct CPUSample {
    var process: Double
    var database: Double

    static func - (later: CPUSample, earlier: CPUSample) -> CPUSample {
        CPUSample(process: later.process - earlier.process, database: later.database - earlier.database)
    }
}

enum CPUClock {
    /// The CPU of this process and of the PostgreSQL whose data folder is `databaseDirectory`
    /// (its postmaster and every backend it started); the database counts 0 when its
    /// `postmaster.pid` cannot be read.
    static func sample(databaseDirectory: URL) -> CPUSample {
        CPUSample(process: seconds(ofProcess: "self") ?? 0, database: databaseSeconds(databaseDirectory))
    }

    /// CPU seconds of the calling thread so far: the benchmark's client threads measure
    /// themselves, so their share can be taken out of the process's.
    static func currentThread() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func databaseSeconds(_ directory: URL) -> Double {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let line = text.split(separator: "\n").first, let postmaster = Int32(line.trimmingCharacters(in: .whitespaces))
        else { return 0 }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).reduce(0) { total, pid in
            guard pid == postmaster || parent(of: pid) == postmaster else { return total }
            return total + (seconds(ofProcess: String(pid)) ?? 0)
        }
    }

    /// The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and
    /// parentheses, so it is skipped up to its last `)`): state is field 3, the parent 4,
    /// utime 14 and stime 15 of the whole line.
    private static func statFields(_ pid: String) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }

    private static func parent(of pid: Int32) -> Int32? {
        statFields(String(pid)).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
    }

    private static func seconds(ofProcess pid: String) -> Double? {
        guard let fields = statFields(pid), fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            return nil
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
