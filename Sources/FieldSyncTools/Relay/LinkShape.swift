import App
import Foundation
import Support

/// How a relayed link behaves: its rate each way, the delay it adds, and how often it drops
/// a connection.
struct LinkShape: Sendable, CustomStringConvertible {
    /// Bits per second from the device to the server, and back; nil: unlimited.
    var upBitsPerSecond: Double?
    var downBitsPerSecond: Double?
    /// Added to every round trip (half of it each way).
    var latency: Duration = .zero
    /// A connection is cut after, on average, this many bytes relayed (either way); nil: never.
    var meanBytesBeforeCut: Int?

    var description: String {
        let rates = [upBitsPerSecond, downBitsPerSecond].map { $0.map(Self.format) ?? "unlimited" }
        let cuts = meanBytesBeforeCut.map { ", a cut every \($0 / 1000) kB on average" } ?? ""
        return
            "\(rates[0]) up, \(rates[1]) down, +\(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000) ms\(cuts)"
    }

    /// `1mbit`, `200kbit`, `64000` (bits per second).
    /// - Throws: `CommandError` for anything else or a rate below 8 kbit/s.
    static func rate(_ text: String) throws -> Double {
        let lower = text.lowercased()
        let units: [(String, Double)] = [("mbit", 1_000_000), ("kbit", 1_000), ("bit", 1)]
        let (number, multiplier) = units.first { lower.hasSuffix($0.0) }.map { (String(lower.dropLast($0.0.count)), $0.1) } ?? (lower, 1)
        guard let value = Double(number), value.isFinite, value * multiplier >= 8_000 else {
            throw CommandError("a rate is a number of bits per second of at least 8kbit, e.g. 1mbit or 200kbit (got \(text))")
        }
        return value * multiplier
    }

    static func format(_ bits: Double) -> String {
        bits >= 1_000_000 ? String(format: "%g Mbit/s", bits / 1_000_000) : String(format: "%g kbit/s", bits / 1_000)
    }
}

extension LinkShape {
    /// The options that set a shape.
    static let options: Set<String> = ["rate", "up", "down", "latency", "cut-every"]

    static let help = """
          --rate R           bandwidth each way: 1mbit, 200kbit, … (default unlimited)
          --up R, --down R   bandwidth of one direction (device to server, server to device)
          --latency MS       milliseconds added to every round trip (default 0)
          --cut-every B      cut a connection after B bytes on average, at random (default never)
        """

    /// The shape the options describe (`fallback` for those not given).
    /// - Throws: `CommandError` for a malformed value.
    init(_ arguments: CommandLineArguments, fallback: LinkShape = LinkShape()) throws {
        self = fallback
        if let rate = arguments.value("rate") { (upBitsPerSecond, downBitsPerSecond) = (try Self.rate(rate), try Self.rate(rate)) }
        if let up = arguments.value("up") { upBitsPerSecond = try Self.rate(up) }
        if let down = arguments.value("down") { downBitsPerSecond = try Self.rate(down) }
        if arguments.value("latency") != nil { latency = .milliseconds(try arguments.number("latency", 0, minimum: 0)) }
        if arguments.value("cut-every") != nil { meanBytesBeforeCut = try arguments.number("cut-every", 0, minimum: 1_000) }
    }
}
