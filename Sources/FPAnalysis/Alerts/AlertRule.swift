/// A limit on one figure of the stored documents (`alerts.rules[]` in the app
/// config, `fprint alerts add`): while the figure crosses the limit for at
/// least the hold time, the rule's alert is active.
package struct AlertRule: Sendable, Equatable {
    package var id: String
    package var figure: AlertFigure
    package var scope: AlertScope
    package var comparison: AlertComparison
    /// In the figure's base unit (bit/s, ms, %, dBm, ms of silence, beacons).
    package var limit: Double
    /// How long the figure must keep crossing before the alert is raised (ms).
    package var holdMs: Int64

    package init(id: String, figure: AlertFigure, scope: AlertScope, comparison: AlertComparison, limit: Double, holdMs: Int64 = 0) {
        self.id = id
        self.figure = figure
        self.scope = scope
        self.comparison = comparison
        self.limit = limit
        self.holdMs = holdMs
    }

    /// "download < 5 Mbit/s on map J1NP for 10 min".
    package var summary: String {
        var text = "\(figure.rawValue) \(comparison.rawValue) \(figure.unit.text(limit))"
        if scope != .everywhere { text += " on \(scope)" }
        if holdMs > 0 { text += " for \(AlertUnit.duration(holdMs))" }
        return text
    }
}

/// What a rule watches. Probe figures come from `networkProbes[]` of any
/// stored document; beacon figures from `bleScans[]`.
package enum AlertFigure: String, Sendable, CaseIterable {
    /// TCP throughput of the down phase.
    case download
    /// TCP throughput of the up phase.
    case upload
    /// Median round trip of the UDP train, else of the ping.
    case rtt
    /// The worse direction of the UDP train's loss, else the ping's loss.
    case loss
    /// The worse direction of the UDP train's jitter.
    case jitter
    /// A beacon's median RSSI in one document.
    case rssi
    /// How long a beacon has not been heard.
    case silence
    /// Beacons heard (median ≥ -90 dBm) at one measured point (cell) of a map.
    case coverage

    package var unit: AlertUnit {
        switch self {
        case .download, .upload: .rate
        case .rtt, .jitter: .milliseconds
        case .loss: .percent
        case .rssi: .dBm
        case .silence: .duration
        case .coverage: .beacons
        }
    }

    package var isProbeFigure: Bool { [.download, .upload, .rtt, .loss, .jitter].contains(self) }

    /// Which scopes make sense: a beacon's figures need the beacon.
    package func check(_ scope: AlertScope) -> String? {
        switch (self, scope) {
        case (.rssi, .beacon), (.silence, .beacon): nil
        case (.rssi, _), (.silence, _): "\(rawValue) is a beacon's figure: give the beacon (--beacon MAC)"
        case (.coverage, .everywhere), (.coverage, .map): nil
        case (.coverage, _): "coverage is a map's figure: give a map or none"
        case (_, .beacon): "\(rawValue) is a probe's figure: its scope is a map, a link or none, not a beacon"
        default: nil
        }
    }
}

/// Which documents a rule reads.
package enum AlertScope: Sendable, Equatable, CustomStringConvertible {
    case everywhere
    /// Documents of this map (`level`).
    case map(String)
    /// A beacon, by upper-case MAC.
    case beacon(String)
    /// Probes that left by this interface, or through this SSID.
    case link(String)

    package var description: String {
        switch self {
        case .everywhere: "every map"
        case .map(let id): "map \(id)"
        case .beacon(let mac): "beacon \(mac)"
        case .link(let name): "link \(name)"
        }
    }
}

package enum AlertComparison: String, Sendable, CaseIterable {
    case below = "<"
    case belowOrAt = "<="
    case above = ">"
    case aboveOrAt = ">="

    /// True when `value` crosses `limit`: the alert's side.
    package func crosses(_ value: Double, _ limit: Double) -> Bool {
        switch self {
        case .below: value < limit
        case .belowOrAt: value <= limit
        case .above: value > limit
        case .aboveOrAt: value >= limit
        }
    }
}
