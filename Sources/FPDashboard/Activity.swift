import FPAnalysis
import FPCore
import Foundation

/// Collection activity: documents per day, ISO week or month (UTC), with
/// who collected them and on which map, newest period first.
enum Activity {
    enum Period: String { case day, week, month }

    struct Row: Equatable {
        var label: String
        var count: Int
        var owners: [String: Int]
        var maps: [String: Int]
    }

    static func label(_ ms: Int64, by period: Period) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: Double(ms) / 1000)
        switch period {
        case .day:
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        case .week:
            let c = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
            return String(format: "%04d-W%02d", c.yearForWeekOfYear!, c.weekOfYear!)
        case .month:
            let c = calendar.dateComponents([.year, .month], from: date)
            return String(format: "%04d-%02d", c.year!, c.month!)
        }
    }

    static func rows(_ points: [SurveyPoint], by period: Period) -> [Row] {
        var rows: [String: Row] = [:]
        for p in points where p.createdAtMs > 0 {
            let key = label(p.createdAtMs, by: period)
            var row = rows[key] ?? Row(label: key, count: 0, owners: [:], maps: [:])
            row.count += 1
            row.owners[p.owner == MeasurementDocument.unsignedOwner ? "(unsigned)" : p.owner, default: 0] += 1
            row.maps[p.map.isEmpty ? "(no map)" : p.map, default: 0] += 1
            rows[key] = row
        }
        return rows.values.sorted { $0.label > $1.label }
    }

    static func describe(_ counts: [String: Int]) -> String {
        counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ")
    }

    /// Bars of the latest 30 periods, oldest left.
    static func chart(_ rows: [Row]) -> String {
        let shown = Array(rows.prefix(30).reversed())
        guard let most = shown.map(\.count).max(), most > 0 else { return "" }
        let left = 50.0, top = 20.0, height = 200.0, bar = 22.0
        // Room right and below for the last labels, which lean down to the right.
        let width = Int(left + Double(shown.count) * bar + 70)
        var out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"activity-bars\" width=\"\(width)\" height=\"310\" viewBox=\"0 0 \(width) 310\" font-family=\"sans-serif\" font-size=\"11\">"]
        for t in SVGPlot.niceTicks(0, Double(most), target: 4) where t == t.rounded() {
            let y = top + height - t / Double(most) * height
            out.append("<line x1=\"\(left - 4)\" y1=\"\(y)\" x2=\"\(left + Double(shown.count) * bar)\" y2=\"\(y)\" stroke=\"#ddd\"/>")
            out.append("<text x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\">\(Int(t))</text>")
        }
        for (i, row) in shown.enumerated() {
            let h = Double(row.count) / Double(most) * height, x = left + Double(i) * bar
            out.append("<rect class=\"bar\" x=\"\(x + 2)\" y=\"\(top + height - h)\" width=\"\(bar - 4)\" height=\"\(h)\" fill=\"#1f77b4\"><title>\(SVGPlot.escape(row.label)): \(row.count)</title></rect>")
            out.append("<text x=\"\(x + bar / 2)\" y=\"\(top + height + 10)\" transform=\"rotate(60 \(x + bar / 2) \(top + height + 10))\">\(SVGPlot.escape(row.label))</text>")
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }
}
