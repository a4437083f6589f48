import Foundation

extension SVGPlot {
    /// A fingerprint taken at one instant (an imported dataset's row: one
    /// reading per transmitter, no time): a bar per transmitter from the
    /// weakest RSSI drawn to its reading, strongest first, its dBm written
    /// beside it. Drawn as what it is, not as an empty time series.
    package static func fingerprintBars(title: String, readings: [(name: String, rssi: Double)], note: String? = nil) -> String {
        let left = 190.0, top = 50.0, width = 480.0, row = 22.0
        let floor = min(-100, ((readings.map(\.rssi).min() ?? -100) / 10).rounded(.down) * 10)
        let ceiling = max(-30, ((readings.map(\.rssi).max() ?? -30) / 10).rounded(.up) * 10)
        let px = { (v: Double) in left + (v - floor) / (ceiling - floor) * width }
        let height = Double(readings.count) * row
        var body = ["<g class=\"axes\" stroke=\"#000\"><line x1=\"\(f(left))\" y1=\"\(f(top + height))\" x2=\"\(f(left + width))\" y2=\"\(f(top + height))\"/></g>"]
        for (v, label) in labelledTicks(floor, ceiling) {
            body.append("<line class=\"grid\" x1=\"\(f(px(v)))\" y1=\"\(f(top))\" x2=\"\(f(px(v)))\" y2=\"\(f(top + height))\" stroke=\"#ddd\"/>")
            body.append("<text x=\"\(f(px(v)))\" y=\"\(f(top + height + 16))\" text-anchor=\"middle\">\(label)</text>")
        }
        body.append("<text x=\"\(f(left + width / 2))\" y=\"\(f(top + height + 34))\" text-anchor=\"middle\">RSSI (dBm)</text>")
        for (i, r) in readings.enumerated() {
            let y = top + Double(i) * row
            body.append("<text x=\"\(f(left - 8))\" y=\"\(f(y + 15))\" text-anchor=\"end\">\(escape(r.name))</text>")
            body.append("<rect class=\"reading\" x=\"\(f(left))\" y=\"\(f(y + 4))\" width=\"\(f(max(1, px(r.rssi) - left)))\" height=\"\(f(row - 8))\" fill=\"\(color(rssi: r.rssi))\"><title>\(escape(r.name)): \(f(r.rssi)) dBm</title></rect>")
            body.append("<text x=\"\(f(px(r.rssi) + 6))\" y=\"\(f(y + 15))\">\(f(r.rssi))</text>")
        }
        if let note { body.append("<text x=\"10\" y=\"\(f(top + height + 56))\" font-size=\"11\" fill=\"#555\">\(escape(note))</text>") }
        return document(width: Int(left + width + 60), height: Int(top + height + (note == nil ? 50 : 70)), title: title, body)
    }
}
