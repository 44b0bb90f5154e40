import Foundation

/// The vertical axis of a count chart: a round top value at or above the largest total, and
/// evenly spaced ticks from zero up to it (at most five steps, each at least 1).
struct ChartScale: Equatable {
    let top: Double
    let step: Double

    /// The scale for totals up to `largest` (negative or zero: a scale of 0 to 1).
    init(largest: Double) {
        let largest = largest.isFinite ? max(largest, 0) : Double.greatestFiniteMagnitude / 10
        step = Self.roundStep(largest / 5)
        top = max(step, (largest / step).rounded(.up) * step)
    }

    /// The tick values, zero first.
    var ticks: [Double] {
        let count = Int((top / step).rounded())
        return (0...count).map { Double($0) * step }
    }

    /// The smallest of 1, 2 or 5 times a power of ten that is at least `raw`, and at least 1.
    static func roundStep(_ raw: Double) -> Double {
        guard raw > 1 else { return 1 }
        let magnitude = pow(10, log10(raw).rounded(.down))
        for factor in [1.0, 2.0, 5.0, 10.0] where factor * magnitude >= raw {
            return factor * magnitude
        }
        return 10 * magnitude
    }

    /// A tick's label: `950`, `9,500`, `25k`, `1.5M`.
    static func label(_ value: Double) -> String {
        if value < 10_000 { return Formatting.count(Int(value)) }
        for (unit, size) in [("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)] where value >= size {
            let scaled = value / size
            guard scaled < 1_000 else { return String(format: "%.1e", value) }
            return (scaled.rounded() == scaled ? String(Int(scaled)) : String(format: "%.1f", scaled)) + unit
        }
        return Formatting.count(Int(value))
    }
}
