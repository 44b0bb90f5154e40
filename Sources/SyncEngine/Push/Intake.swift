import Foundation
import SyncProtocol

/// Rules 1 and 2 for one run: how each incoming op is answered, which ops are attempted now
/// (in `clientSeq` order) and which wait for a predecessor.
struct Intake {
    /// How one incoming op is answered.
    enum Answer {
        /// Seen before and settled: the stored result, replayed.
        case stored(OpLogEntry)
        /// New in this run, or seen before and still deferred: its result in this run.
        case run(opId: String, replayed: Bool)
        /// Same op id, different content.
        case reused
        /// A new op id on a `clientSeq` already received.
        case regressed
    }

    private(set) var answers: [Answer] = []
    /// Received ops to attempt, ascending `clientSeq`: held ones at or below the high-water mark,
    /// then the contiguous run above it.
    private(set) var attempts: [PendingOp] = []
    /// Ops behind a gap, with the absent seqs below each (at most `maxMissing` of them).
    private(set) var waiting: [(op: PendingOp, missing: [Int64])] = []
    /// Op ids first received in this run.
    private(set) var fresh: Set<String> = []
    /// The contiguous received high-water mark after this run.
    private(set) var highWater: Int64

    init(incoming: [PendingOp], device: DeviceState, stored: [OpLogEntry], maxMissing: Int) {
        highWater = device.highWater
        let storedById = Dictionary(stored.map { ($0.opId, $0) }, uniquingKeysWith: { first, _ in first })
        let heldSeqs = Set(device.pending.map(\.op.clientSeq))
        var received = device.pending
        for pending in incoming {
            let answer = Self.answer(pending, stored: storedById[pending.op.opId], highWater: device.highWater, heldSeqs: heldSeqs)
            answers.append(answer)
            if case .run(let opId, false) = answer {
                fresh.insert(opId)
                received.append(pending)
            }
        }
        sequence(received.sorted { $0.op.clientSeq < $1.op.clientSeq }, maxMissing: maxMissing)
    }

    private static func answer(_ pending: PendingOp, stored: OpLogEntry?, highWater: Int64, heldSeqs: Set<Int64>) -> Answer {
        let op = pending.op
        if let stored {
            guard stored.fingerprint == pending.fingerprint else { return .reused }
            return stored.status == .deferred ? .run(opId: op.opId, replayed: true) : .stored(stored)
        }
        if op.clientSeq <= highWater || heldSeqs.contains(op.clientSeq) { return .regressed }
        return .run(opId: op.opId, replayed: false)
    }

    /// Splits received ops into attempts and waiting ones, and advances the high-water mark.
    private mutating func sequence(_ received: [PendingOp], maxMissing: Int) {
        let seqs = Set(received.map(\.op.clientSeq))
        var expected = highWater + 1
        for pending in received {
            let seq = pending.op.clientSeq
            if seq < expected {
                attempts.append(pending)
            } else if seq == expected {
                attempts.append(pending)
                expected += 1
            } else {
                waiting.append((pending, Self.absent(from: expected, below: seq, received: seqs, limit: maxMissing)))
            }
        }
        highWater = expected - 1
    }

    /// The seqs in `from..<below` not received, at most `limit` of them.
    private static func absent(from: Int64, below: Int64, received: Set<Int64>, limit: Int) -> [Int64] {
        var missing: [Int64] = []
        var seq = from
        while seq < below, missing.count < limit {
            if !received.contains(seq) { missing.append(seq) }
            seq += 1
        }
        return missing
    }
}
