import App
import Cryptography
import Foundation
import Support
import SyncEngine
import SyncProtocol
import Synchronization

/// `fieldsync bench upload`: attachment upload throughput and the server's memory while
/// several devices upload large files.
struct BenchUploadCommand: Command {
    let path = ["bench", "upload"]
    let summary = "measure attachment upload MB/s and memory growth over loopback"
    let valueOptions: Set<String> = ["clients", "megabytes", "chunk-kib"]
    let usage = """
        Usage: fieldsync bench upload [--clients 8] [--megabytes 50] [--chunk-kib 256]

        Starts FieldSync on a throwaway embedded PostgreSQL (durable commits) and uploads,
        over loopback, files of --megabytes in chunks of --chunk-kib, each chunk flushed to
        disk before it is acknowledged:
          1. one device uploads one file: chunk MB/s and MB/s including finalize;
          2. --clients devices upload one file each at once: aggregate MB/s, and the growth
             of this process's resident memory high-water mark (VmHWM, reset first) over
             its resident size before the uploads. Client and server share the process,
             so the figure bounds the server's growth from above.
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        let clients = try arguments.number("clients", 8)
        let megabytes = try arguments.number("megabytes", 50)
        let chunkBytes = try arguments.number("chunk-kib", 256) << 10
        let bench = try BenchServer.start(environment: environment)
        defer { bench.stop() }
        try bench.updateSettings { $0.maxAttachmentBytes = max($0.maxAttachmentBytes, megabytes << 20) }
        let client = ChunkClient(port: bench.application.port)
        print("FieldSync upload benchmark: \(megabytes) MB files in \(chunkBytes >> 10) KiB chunks, durable writes, loopback HTTP")

        let single = try upload(devices: makeDevices(bench, count: 1, megabytes: megabytes, chunkBytes: chunkBytes), client: client)
        print(
            String(
                format: "1 client: chunks %.0f MB/s, including finalize %.0f MB/s (finalize %.0f ms)",
                single.chunkRate, single.totalRate, single.finalizeMilliseconds))

        let devices = try makeDevices(bench, count: clients, megabytes: megabytes, chunkBytes: chunkBytes)
        let before = try MemoryStatus.resetPeak()
        let parallel = try upload(devices: devices, client: client)
        let peak = try MemoryStatus.read().peak
        print(String(format: "%d clients: aggregate chunks %.0f MB/s, including finalize %.0f MB/s", clients, parallel.chunkRate, parallel.totalRate))
        print(
            String(
                format: "resident memory: %.1f MB before, high-water %.1f MB during: growth %.1f MB",
                Double(before) / 1024, Double(peak) / 1024, Double(peak - before) / 1024))
        return 0
    }

    private func makeDevices(_ bench: BenchServer, count: Int, megabytes: Int, chunkBytes: Int) throws -> [UploadingDevice] {
        try (0..<count).map { _ in
            let credentials = try bench.token(role: .field)
            return try UploadingDevice(
                token: credentials.token, totalBytes: megabytes << 20, chunkBytes: chunkBytes, seed: UInt64.random(in: 1...UInt64.max))
        }
    }

    /// Uploads every device's file at once; rates are megabytes over wall-clock seconds.
    private func upload(devices: [UploadingDevice], client: ChunkClient) throws -> UploadRates {
        let failures = Mutex<[String]>([])
        let chunkPhase = Mutex(0.0)
        let finalizePhase = Mutex(0.0)
        let total = measureMilliseconds {
            onThreads(devices.count) { index in
                do {
                    let (chunks, finalize) = try devices[index].upload(client: client)
                    chunkPhase.withLock { $0 = max($0, chunks) }
                    finalizePhase.withLock { $0 = max($0, finalize) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw CommandError("upload failed: \(failure)") }
        let megabytes = Double(devices.reduce(0) { $0 + $1.totalBytes }) / 1_048_576
        return UploadRates(
            chunkRate: megabytes / (chunkPhase.withLock { $0 } / 1000), totalRate: megabytes / (total / 1000),
            finalizeMilliseconds: finalizePhase.withLock { $0 })
    }
}

/// Megabytes per second over the chunk phase and over the whole upload, and the slowest finalize.
private struct UploadRates {
    let chunkRate: Double
    let totalRate: Double
    let finalizeMilliseconds: Double
}

/// One device with a file of pseudo-random bytes (different for every device, so nothing
/// deduplicates). Chunks are regenerated when sent, so the client never holds the file.
private final class UploadingDevice: Sendable {
    let token: String
    let totalBytes: Int
    let chunkBytes: Int
    let seed: UInt64
    let sha256: String
    let chunkSHA256: [String]

    init(token: String, totalBytes: Int, chunkBytes: Int, seed: UInt64) throws {
        self.token = token
        self.totalBytes = totalBytes
        self.chunkBytes = chunkBytes
        self.seed = seed
        var hasher = try SHA256()
        var digests: [String] = []
        for index in 0..<(totalBytes + chunkBytes - 1) / chunkBytes {
            let chunk = Self.chunk(index, seed: seed, chunkBytes: chunkBytes, totalBytes: totalBytes)
            try hasher.update(chunk)
            digests.append(SHA256.hash(chunk).hexString)
        }
        sha256 = try hasher.finalize().hexString
        chunkSHA256 = digests
    }

    /// Registers, sends every chunk in order, finalizes; returns both phases in milliseconds.
    func upload(client: ChunkClient) throws -> (chunks: Double, finalize: Double) {
        let attId = "bench-\(seed)"
        let registration: [String: Any] = [
            "attId": attId, "recordId": "bench-record-\(seed)", "collection": "part_usage", "contentType": "image/jpeg",
            "totalBytes": totalBytes, "chunkBytes": chunkBytes, "chunkCount": chunkSHA256.count, "sha256": sha256,
        ]
        try client.expect200("POST", "/v1/attachments", token: token, body: try JSONSerialization.data(withJSONObject: registration))
        let chunks = try measureMilliseconds {
            for (index, digest) in chunkSHA256.enumerated() {
                let bytes = Self.chunk(index, seed: seed, chunkBytes: chunkBytes, totalBytes: totalBytes)
                try client.expect200("PUT", "/v1/attachments/\(attId)/chunks/\(index)", token: token, body: bytes, chunkSHA256: digest)
            }
        }
        let finalize = try measureMilliseconds {
            try client.expect200("POST", "/v1/attachments/\(attId)/finalize", token: token, body: nil)
        }
        return (chunks, finalize)
    }

    /// Chunk `index`: SplitMix64 output seeded by the device and the index.
    static func chunk(_ index: Int, seed: UInt64, chunkBytes: Int, totalBytes: Int) -> Data {
        let count = min(chunkBytes, totalBytes - index * chunkBytes)
        var state = seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        for position in words.indices {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            words[position] = mixed ^ (mixed >> 31)
        }
        return words.withUnsafeBytes { Data($0.prefix(count)) }
    }
}

/// A blocking HTTP/1.1 client for chunk uploads: one keep-alive loopback connection per
/// calling thread (devices upload one chunk at a time), so the figures are the server's and
/// not those of a client stack's thread hops.
private final class ChunkClient: Sendable {
    private let port: Int
    /// One connection per thread, opened on first use.
    private let connections = Mutex<[UInt64: LoopbackConnection]>([:])

    init(port: Int) {
        self.port = port
    }

    /// Sends a request and throws unless the answer is 200.
    func expect200(_ method: String, _ path: String, token: String, body: Data?, chunkSHA256: String? = nil) throws {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        head += "Content-Type: \(chunkSHA256 == nil ? "application/json" : "application/octet-stream")\r\n"
        if let chunkSHA256 { head += "X-Chunk-SHA256: \(chunkSHA256)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        let connection = try connections.withLock { table in
            let thread = UInt64(pthread_self())
            if let open = table[thread] { return open }
            let open = try LoopbackConnection(port: port)
            table[thread] = open
            return open
        }
        let answer = try connection.exchange(Data(head.utf8) + (body ?? Data()))
        guard answer.status == 200 else {
            throw CommandError("\(method) \(path) answered \(answer.status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
        }
    }
}

/// This process's resident memory from `/proc/self/status`, in KiB.
enum MemoryStatus {
    static func read() throws -> (resident: Int, peak: Int) {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { Int($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) } ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Resets the high-water mark to the current resident size (`echo 5 > /proc/self/clear_refs`)
    /// and returns that size.
    static func resetPeak() throws -> Int {
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        return try read().resident
    }
}
