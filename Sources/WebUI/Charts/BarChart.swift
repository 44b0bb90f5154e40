import Foundation
import Templating

/// A column chart with stacked series, laid out for `partials/bar-chart`: the geometry is
/// computed here, the SVG markup lives in the template (so every label is HTML-escaped), and
/// the same figures fill a visually hidden table for screen readers.
///
/// ```swift
/// let chart = BarChart(
///     id: "sync-age", title: "Devices by time since last sync", description: "…", category: "Last sync",
///     series: [.init(name: "Devices", style: "devices")], columns: [.init(label: "Under 1 hour", values: [12])])
/// content["syncAgeChart"] = chart.templateValue
/// ```
struct BarChart {
    /// One stacked part of every column, drawn with the CSS class `series-<style>`.
    struct Series {
        let name: String
        let style: String
    }

    /// One column: its label and one value per series, in the series' order.
    struct Column {
        let label: String
        let values: [Int]
    }

    /// A drawn part of a column, in SVG user units.
    struct Segment: Equatable {
        let style: String
        let y: Double
        let height: Double
        let text: String
    }

    /// A drawn column.
    struct Bar {
        let x: Double
        let width: Double
        let label: String
        let shortLabel: String
        let total: Int
        let segments: [Segment]
    }

    /// The ids of the SVG's title and description derive from `id`, unique in the page.
    let id: String
    let title: String
    let description: String
    /// What the columns are, as the table's first heading says it (`Day`, `Collection`).
    let category: String
    let series: [Series]
    let columns: [Column]

    // MARK: - Geometry

    static let width = 800.0
    static let height = 240.0
    static let plotLeft = 56.0
    static let plotRight = 792.0
    static let plotTop = 12.0
    static let plotBottom = 208.0
    static let labelBaseline = 226.0
    /// A lone column stays a column, not a slab.
    static let maximumBarWidth = 72.0
    /// Average width of a label character at the chart's font size, to shorten labels that
    /// would run into the next column.
    static let characterWidth = 6.5

    var scale: ChartScale {
        ChartScale(largest: Double(columns.map { Self.total($0.values) }.max() ?? 0))
    }

    /// The columns as drawn, left to right; a value's segment is at least one unit tall, so
    /// a small count beside a large one stays visible (the table has the exact figures).
    var bars: [Bar] {
        guard !columns.isEmpty else { return [] }
        let slot = (Self.plotRight - Self.plotLeft) / Double(columns.count)
        let width = min(slot * 0.64, Self.maximumBarWidth)
        let unit = (Self.plotBottom - Self.plotTop) / scale.top
        return columns.enumerated().map { index, column in
            var base = Self.plotBottom
            var segments: [Segment] = []
            for (value, series) in zip(column.values, series) where value > 0 {
                let height = max(Double(value) * unit, 1)
                let top = max(base - height, Self.plotTop)
                segments.append(
                    Segment(style: series.style, y: top, height: base - top, text: "\(series.name), \(column.label): \(Formatting.count(value))"))
                base = top
            }
            return Bar(
                x: Self.plotLeft + Double(index) * slot + (slot - width) / 2, width: width, label: column.label,
                shortLabel: Self.shortened(column.label, toFit: slot), total: Self.total(column.values), segments: segments)
        }
    }

    /// The horizontal lines of the axis with their labels, zero at the bottom.
    var ticks: [(y: Double, label: String)] {
        let scale = scale
        return scale.ticks.map { value in
            (Self.plotBottom - value / scale.top * (Self.plotBottom - Self.plotTop), ChartScale.label(value))
        }
    }

    /// A column's total; a sum past `Int.max` stays at `Int.max` instead of trapping.
    static func total(_ values: [Int]) -> Int {
        values.reduce(0) { sum, value in
            let (result, overflow) = sum.addingReportingOverflow(max(value, 0))
            return overflow ? Int.max : result
        }
    }

    /// `label`, cut with an ellipsis when it is wider than `width`.
    static func shortened(_ label: String, toFit width: Double) -> String {
        let fits = max(Int(width / characterWidth), 2)
        return label.count <= fits ? label : String(label.prefix(fits - 1)) + "…"
    }

    // MARK: - Template

    var templateValue: TemplateValue {
        let bars = bars
        return [
            "id": .string(id), "title": .string(title), "description": .string(description), "category": .string(category),
            "viewBox": .string("0 0 \(Self.number(Self.width)) \(Self.number(Self.height))"),
            "ticks": .array(
                ticks.map { tick in
                    [
                        "y": .string(Self.number(tick.y)), "label": .string(tick.label), "x1": .string(Self.number(Self.plotLeft)),
                        "x2": .string(Self.number(Self.plotRight)), "labelX": .string(Self.number(Self.plotLeft - 6)),
                        "labelY": .string(Self.number(tick.y + 4)),
                    ]
                }),
            "bars": .array(bars.map(Self.value)),
            "empty": .bool(bars.allSatisfy { $0.total == 0 }),
            "emptyX": .string(Self.number((Self.plotLeft + Self.plotRight) / 2)),
            "emptyY": .string(Self.number((Self.plotTop + Self.plotBottom) / 2)),
            "legend": .array(series.map { ["name": .string($0.name), "style": .string($0.style)] }),
            "stacked": .bool(series.count > 1),
            "rows": .array(
                columns.map { column in
                    [
                        "label": .string(column.label), "cells": .array(column.values.map { .string(Formatting.count($0)) }),
                        "total": .string(Formatting.count(Self.total(column.values))),
                    ]
                }),
        ]
    }

    private static func value(_ bar: Bar) -> TemplateValue {
        [
            "label": .string(bar.label), "shortLabel": .string(bar.shortLabel), "total": .string(Formatting.count(bar.total)),
            "labelX": .string(number(bar.x + bar.width / 2)), "labelY": .string(number(labelBaseline)),
            "segments": .array(
                bar.segments.map { segment in
                    [
                        "style": .string(segment.style), "x": .string(number(bar.x)), "y": .string(number(segment.y)),
                        "width": .string(number(bar.width)), "height": .string(number(segment.height)), "text": .string(segment.text),
                    ]
                }),
        ]
    }

    /// A coordinate with at most one decimal: `12`, `12.5`.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }
}
