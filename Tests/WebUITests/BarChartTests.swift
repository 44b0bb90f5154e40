import Foundation
import SyncEngine
import Templating
import Testing

@testable import WebUI

@Suite("Bar charts: scale, geometry and SVG")
struct BarChartTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func chart(_ columns: [BarChart.Column], series: [BarChart.Series] = [.init(name: "Ops", style: "applied")]) -> BarChart {
        BarChart(id: "chart-test", title: "Test chart", description: "What it shows.", category: "Day", series: series, columns: columns)
    }

    private func svg(_ chart: BarChart) throws -> String {
        let library = try TemplateLibrary(directory: Self.root.appendingPathComponent("Templates"))
        return try library.render("partials/bar-chart", chart.templateValue)
    }

    @Test("The scale's top is a round number at or above the largest total, in at most five steps")
    func scale() {
        #expect(ChartScale(largest: 0).top == 1 && ChartScale(largest: 0).step == 1)
        #expect(ChartScale(largest: 3).ticks == [0, 1, 2, 3])
        #expect(ChartScale(largest: 7).ticks == [0, 2, 4, 6, 8])
        #expect(ChartScale(largest: 100).ticks == [0, 20, 40, 60, 80, 100])
        #expect(ChartScale(largest: 1_234_567).ticks.map(ChartScale.label) == ["0", "500k", "1M", "1.5M"])
        #expect(ChartScale(largest: -5).top == 1)
    }

    @Test("No columns, or only zeros, draw the axis and the empty message but no bar")
    func empty() throws {
        #expect(chart([]).bars.isEmpty)
        let zeros = chart([.init(label: "1 Dec", values: [0]), .init(label: "2 Dec", values: [0])])
        #expect(zeros.bars.count == 2)
        #expect(zeros.bars.allSatisfy { $0.segments.isEmpty })
        #expect(zeros.ticks.map(\.label) == ["0", "1"])
        let text = try svg(zeros)
        #expect(text.contains("Nothing to show yet"))
        #expect(!text.contains("<rect"))
        #expect(text.contains(#"<tr><th scope="row">2 Dec</th><td>0</td></tr>"#))
    }

    @Test("One bar is centred in the plot and fills it up to the top of the scale")
    func oneBar() throws {
        let bars = chart([.init(label: "Only", values: [5])]).bars
        try #require(bars.count == 1)
        let bar = bars[0]
        #expect(abs(bar.x + bar.width / 2 - (BarChart.plotLeft + BarChart.plotRight) / 2) < 0.001)
        #expect(
            bar.segments == [
                BarChart.Segment(style: "applied", y: BarChart.plotTop, height: BarChart.plotBottom - BarChart.plotTop, text: "Ops, Only: 5")
            ])
        let text = try svg(chart([.init(label: "Only", values: [5])]))
        #expect(text.contains(#"<rect class="chart-bar series-applied" x="#))
        #expect(text.contains(#"role="img" aria-labelledby="chart-test-title chart-test-desc""#))
        #expect(text.contains(#"<title id="chart-test-title">Test chart</title>"#))
        #expect(text.contains(#"<desc id="chart-test-desc">What it shows.</desc>"#))
        #expect(!text.contains("Nothing to show yet"))
    }

    @Test("Stacked segments sit on each other; a small value beside a large one stays visible")
    func stacked() {
        let series = [BarChart.Series(name: "Applied", style: "applied"), .init(name: "Rejected", style: "rejected")]
        let bar = chart([.init(label: "Mon", values: [10_000, 1])], series: series).bars[0]
        #expect(bar.segments.count == 2)
        #expect(bar.segments[1].y + bar.segments[1].height == bar.segments[0].y)
        #expect(bar.segments[1].height >= 1)
        #expect(bar.segments.allSatisfy { $0.y >= BarChart.plotTop })
    }

    @Test("Huge counts neither trap nor leave the plot, and read in short units")
    func largeNumbers() throws {
        let series = [BarChart.Series(name: "A", style: "applied"), .init(name: "B", style: "rejected")]
        let big = chart([.init(label: "Big", values: [Int.max, Int.max]), .init(label: "Small", values: [1, 0])], series: series)
        #expect(BarChart.total([Int.max, Int.max]) == Int.max)
        for bar in big.bars {
            for segment in bar.segments {
                #expect(segment.y >= BarChart.plotTop && segment.y + segment.height <= BarChart.plotBottom + 0.001)
            }
        }
        #expect(big.ticks.allSatisfy { $0.y >= BarChart.plotTop - 0.001 && $0.y <= BarChart.plotBottom })
        #expect(ChartScale.label(25_000) == "25k")
        #expect(ChartScale.label(2_000_000_000) == "2B")
        #expect(ChartScale.label(9_500) == "9,500")
        let text = try svg(big)
        #expect(text.contains("<td>9,223,372,036,854,775,807</td>"))
    }

    @Test("Labels are HTML-escaped everywhere they appear, and long ones are shortened under the bar")
    func escaping() throws {
        let hostile = #"<script>alert("x")</script> & 'more'"#
        let text = try svg(chart([.init(label: hostile, values: [3])]))
        #expect(!text.contains("<script>"))
        #expect(text.contains("<th scope=\"row\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;</th>"))
        #expect(text.contains("<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;: 3</title>"))
        #expect(BarChart.shortened("inspections-north", toFit: 60) == "inspecti…")
        #expect(BarChart.shortened("1 Dec", toFit: 60) == "1 Dec")
    }

    @Test("Past ten collections, the smallest share an Other column")
    func otherCollections() {
        let columns = (1...12).map { BarChart.Column(label: "c\($0)", values: [$0, 0, 0, 0]) }
        let grouped = ActivityCharts.collectionColumns(columns)
        #expect(grouped.count == 10)
        #expect(grouped[0].label == "c12")
        #expect(grouped[9].label == "Other (3 collections)")
        #expect(grouped[9].values == [6, 0, 0, 0])
    }

    @Test("The last fourteen days start at local midnight, across a clock change too")
    func dayStarts() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-04-02T10:00:00Z"))
        let starts = ActivityCharts.dayStarts(endingAt: now, count: 14, in: paris)
        #expect(starts.count == 15)
        #expect(ActivityCharts.dayLabel(starts[0], in: paris) == "20 Mar")
        #expect(ActivityCharts.dayLabel(starts[13], in: paris) == "2 Apr")
        let lengths = zip(starts, starts.dropFirst()).map { $1.timeIntervalSince($0) / 3600 }
        #expect(lengths.filter { $0 == 23 }.count == 1)
        #expect(lengths.filter { $0 == 24 }.count == 13)
    }
}
