/// What the rules read of one stored document: its time and map, its probes'
/// figures, its beacons' reports, and how many beacons its point hears.
package struct AlertFacts: Sendable, Equatable {
    package var id: String
    /// When the measurement started (ms since 1970).
    package var at: Int64
    package var map: String?
    package var probes: [Probe] = []
    /// Per beacon MAC (upper case) of the rules: its reports in this document.
    package var beacons: [String: BeaconReports] = [:]
    /// The measured point and the beacons it hears (median ≥ -90 dBm); nil without a point or BLE.
    package var cell: Cell?

    package init(id: String, at: Int64, map: String?) {
        self.id = id
        self.at = at
        self.map = map
    }

    package struct Probe: Sendable, Equatable {
        package var at: Int64
        package var interface: String?
        package var ssid: String?
        /// Figures in base units (bit/s, ms, %), only of phases that succeeded.
        package var figures: [AlertFigure: Double]

        package init(at: Int64, interface: String?, ssid: String?, figures: [AlertFigure: Double]) {
            self.at = at
            self.interface = interface
            self.ssid = ssid
            self.figures = figures
        }
    }

    package struct BeaconReports: Sendable, Equatable {
        package var medianRSSI: Double?
        /// The report times (ms since 1970), for silence.
        package var heard: [Int64]

        package init(medianRSSI: Double?, heard: [Int64]) {
            self.medianRSSI = medianRSSI
            self.heard = heard
        }
    }

    package struct Cell: Sendable, Equatable {
        package var x: Int
        package var y: Int
        package var beacons: Int

        package init(x: Int, y: Int, beacons: Int) {
            self.x = x
            self.y = y
            self.beacons = beacons
        }
    }
}

/// A value that crossed a limit, and where it came from.
package struct AlertValue: Sendable, Equatable {
    package var at: Int64
    package var value: Double
    package var document: String

    package init(at: Int64, value: Double, document: String) {
        self.at = at
        self.value = value
        self.document = document
    }
}

/// One stretch of time a rule's figure crossed its limit for its subject.
package struct Alert: Sendable, Equatable {
    package var rule: AlertRule
    /// What crossed: "map J1NP", "beacon AA:…", "J1NP cell (363, 701)".
    package var subject: String
    /// When it was raised: the first crossing plus the hold time.
    package var since: Int64
    /// When a value no longer crossed; nil while active.
    package var until: Int64?
    /// The crossing values up to the raise (the latest 20 of them); empty for a beacon never heard.
    package var values: [AlertValue]
    /// The furthest past the limit over the whole stretch.
    package var worst: Double?

    package init(rule: AlertRule, subject: String, since: Int64, until: Int64?, values: [AlertValue], worst: Double?) {
        self.rule = rule
        self.subject = subject
        self.since = since
        self.until = until
        self.values = values
        self.worst = worst
    }

    package var isActive: Bool { until == nil }
    /// Stable across evaluations: what the webhook's delivered events are remembered by.
    package var key: String { "\(rule.id)|\(subject)|\(since)" }
}
