import FPCore

/// How a live position is made from a window's signals.
package enum TrackMethod: String, Sendable, CaseIterable, Codable {
    /// WKNN against the map's stored radiomap.
    case wknn
    /// Trilateration from the map's beacon registry.
    case beacons
    /// Both, as two measurements of one Kalman update, each weighed by its own variance.
    case fused
}

/// One live position: the filtered estimate, in map units and metres, with the
/// accuracy the filter's covariance implies.
package struct TrackPoint: Sendable, Equatable {
    package var timeMs: Int
    package var map: String
    package var floor: Int?
    /// Filtered position, map units.
    package var x: Double
    package var y: Double
    package var metersPerUnit: Double
    /// √(Pxx + Pyy), metres.
    package var accuracyM: Double
    package var method: TrackMethod
    package var transmittersUsed: Int
    /// The map detector's confidence (auto-map), nil with a fixed map.
    package var mapConfidence: Double?
    /// This window's unfiltered fixes (map units); nil where the method had none.
    package var wknnFix: Fix?
    package var beaconsFix: Fix?
    /// What the stated accuracy was made of, on a sparse survey (nil elsewhere).
    package var accuracyParts: AccuracyParts?

    package var xM: Double { x * metersPerUnit }
    package var yM: Double { y * metersPerUnit }
    /// True when no fix came this window and the filter only predicted.
    package var coasting: Bool { wknnFix == nil && beaconsFix == nil }
}

/// Live positioning: samples in, one filtered position per call to `position(atMs:)`.
/// Pure and deterministic: the CLI feeds it from radios, a simulation, a
/// replay or stored documents alike.
package struct Tracker: Sendable {
    package struct Options: Sendable {
        package var method: TrackMethod
        package var windowMs: Int
        /// Walking speed, m/s: the filter's process noise and initial velocity spread.
        package var walkingSpeed: Double
        /// Windows a new map must hold before it is reported (auto-map).
        package var hold: Int
        /// Process noise; nil = tied to `walkingSpeed` (`Kalman2D.Noise.walking`).
        package var noise: Kalman2D.Noise?
        /// The least standard deviation (m) each method's fix is trusted to: what the
        /// fusion weighs them by beside their own spread (WKNN) or range residuals (beacons).
        package var wknnSigma: Double
        package var beaconsSigma: Double
        /// dB a beacon's window median varies by beyond the law: its ranges' share of the
        /// beacon fix's variance (`BeaconLocator.fix`); 0 leaves the residuals alone.
        package var beaconsRangeSigmaDb: Double
        /// BLE reports weaker than this (dBm) are left out of every window; nil keeps them all.
        package var minBLERSSI: Double?
        /// What the window's BLE transmitters are keyed by for WKNN (the radiomap must be keyed alike).
        package var bleKey: BLEKey = .address

        package init(method: TrackMethod = .fused, windowMs: Int = 2000, walkingSpeed: Double = 1, hold: Int = 3,
                     noise: Kalman2D.Noise? = nil, wknnSigma: Double = 1, beaconsSigma: Double = 3,
                    beaconsRangeSigmaDb: Double = 5) {
            self.wknnSigma = wknnSigma
            self.beaconsRangeSigmaDb = beaconsRangeSigmaDb
            self.beaconsSigma = beaconsSigma
            self.method = method
            self.windowMs = windowMs
            self.walkingSpeed = walkingSpeed
            self.hold = hold
            self.noise = noise
        }
    }

    package let options: Options
    package let models: [String: MapModel]
    /// nil: the map is detected (auto-map).
    package let fixedMap: String?
    private var detector: MapDetector?
    private var window: SignalWindow
    package private(set) var filter: Kalman2D?
    /// The Bayes filter over the map's radiomap cells (wknn and fused with a radiomap).
    package private(set) var cellFilter: RadiomapFilter?
    /// The belief over a sparse survey's cells, beside the Kalman filter: where its most
    /// likely cell lies from the filter's position joins the stated accuracy (`AccuracyParts`).
    package private(set) var doubtFilter: RadiomapFilter?
    /// The fixes' recent jumps from the Kalman filter's prediction (sparse surveys' stated accuracy).
    private var snaps = SnapMemory()
    /// The Kalman accuracy's recent level (sparse surveys' stated accuracy).
    private var recentKalman = RecentKalman()
    private var filterMap: String?
    private var lastMs: Int?
    /// The last position reported: where the walker is when a floor change is weighed.
    private var lastPoint: TrackPoint?
    /// The radios heard in the last position's window ("ble", "wifi"): what the position was made from.
    package private(set) var windowRadios: [String] = []

    /// `fixedMap` nil: detect the map among `models` from the signals.
    package init(models: [MapModel], fixedMap: String?, options: Options) {
        self.options = options
        self.models = Dictionary(models.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.fixedMap = fixedMap
        detector = fixedMap == nil ? MapDetector(owner: MapDetector.owners(models), hold: options.hold) : nil
        window = SignalWindow(lengthMs: options.windowMs)
    }

    /// Adds one radio sample (its time on the run's clock, in order). BLE
    /// reports without RSSI and other radios are ignored.
    package mutating func add(_ sample: Sample) {
        switch sample {
        case .ble(let s):
            if let rssi = s.rssi, options.minBLERSSI.map({ Double(rssi) >= $0 }) ?? true {
                window.addBLE(address: s.address, rssi: Double(rssi), timeMs: s.time,
                              identity: s.beacon.flatMap(BeaconIdentity.init(beacon:)))
            }
        case .wifi(let s): window.addWiFi(mac: s.mac, rssi: Double(s.rssi), timeMs: s.time)
        case .cell, .geo: break
        }
    }

    /// `identity`: what the report advertised (its decoded iBeacon/Eddystone-UID frame), if anything.
    package mutating func addBLE(address: String, rssi: Double, timeMs: Int, identity: BeaconIdentity? = nil) {
        if let floor = options.minBLERSSI, rssi < floor { return }
        window.addBLE(address: address, rssi: rssi, timeMs: timeMs, identity: identity)
    }

    package mutating func addWiFi(mac: String, rssi: Double, timeMs: Int) {
        window.addWiFi(mac: mac, rssi: rssi, timeMs: timeMs)
    }

    /// How far (m) beyond its stated accuracy the last position may be from a stairs or
    /// lift of its floor for a floor change to be taken (issue 59: J3NP heard through
    /// J2NP's ceiling mid-corridor); a stairs' flight runs a few metres itself.
    static let passageReachM = 8.0

    /// Whether a floor change may be taken now: the last position is near one of its
    /// floor's passages, or the floor's passages are unknown, or nothing was reported yet.
    private var nearPassage: Bool {
        guard let p = lastPoint, let distance = models[p.map]?.distanceToPassage(x: p.x, y: p.y) else { return true }
        return distance <= Self.passageReachM + p.accuracyM
    }

    /// The position at `t` from the window ending at `t`; nil until a map is
    /// known and a first fix made. Without a fix in a window the filter coasts
    /// (predicts only, its accuracy growing). `control`: step/heading
    /// displacement since the last call (motion sensors), metres.
    package mutating func position(atMs t: Int, control: Kalman2D.Control? = nil) -> TrackPoint? {
        let p = locate(atMs: t, control: control)
        if let p { lastPoint = p }
        return p
    }

    private mutating func locate(atMs t: Int, control: Kalman2D.Control?) -> TrackPoint? {
        window.slide(toMs: t)
        let fp = window.fingerprint(endMs: t)
        windowRadios = (fp.ble.isEmpty ? [] : ["ble"]) + (fp.wifi.isEmpty ? [] : ["wifi"])
        var confidence: Double?
        let mapID: String
        if let fixedMap {
            mapID = fixedMap
        } else {
            let keyed = fp.keyed(by: .identity)  // as `MapDetector.owners` keys them
            let mayChange = nearPassage
            guard let seen = detector?.observe(Reduction.reduce(keyed, set: .combined, options: SignalOptions()),
                                               mayChange: mayChange) else {
                return nil
            }
            mapID = seen.map
            confidence = seen.confidence
        }
        guard let model = models[mapID] else { return nil }
        let m = model.metersPerUnit
        let wknn = options.method == .beacons ? nil : model.radiomap?.fix(fp.keyed(by: options.bleKey), metersPerUnit: m,
                                                                                  baseVariance: options.wknnSigma * options.wknnSigma)
        let beacons = options.method == .wknn ? nil : model.locator?.fix(fp, baseVariance: options.beaconsSigma * options.beaconsSigma,
                                                                                 rangeSigmaDb: options.beaconsRangeSigmaDb)
        let fixes = [wknn, beacons].compactMap { $0 }
        if filterMap != mapID {
            // Another floor: its own coordinates and signals; start again.
            filter = nil
            cellFilter = nil
            doubtFilter = nil
            snaps = SnapMemory()
            recentKalman = RecentKalman()
            filterMap = mapID
        }
        // A window's fixes tell where the walker was at its middle, not at its end.
        let tm = t - options.windowMs / 2
        if options.method != .beacons, let cells = model.cells {
            return cellPosition(atMs: t, middleMs: tm, window: fp, cells: cells, model: model, wknn: wknn, beacons: beacons,
                                confidence: confidence)
        }
        let noise = options.noise ?? .walking(speed: options.walkingSpeed)
        // The Kalman filter runs on window midpoints and is extrapolated to `t` by
        // its velocity, so a walker is not reported half a window behind.
        if var f = filter {
            let dt = Double(tm - (lastMs ?? tm)) / 1000
            f.predict(dt: dt, control: control)
            for fix in fixes { snaps.note(f, fixXM: fix.x * m, yM: fix.y * m, variance: fix.variance, atMs: tm) }
            for fix in fixes { f.update(x: fix.x * m, y: fix.y * m, variance: fix.variance) }
            filter = f
        } else {
            guard let first = fixes.first else { return nil }
            var f = Kalman2D(x: first.x * m, y: first.y * m, measurementVariance: first.variance,
                             velocityVariance: options.walkingSpeed * options.walkingSpeed, noise: noise)
            for fix in fixes.dropFirst() { f.update(x: fix.x * m, y: fix.y * m, variance: fix.variance) }
            filter = f
        }
        lastMs = tm
        guard var now = filter else { return nil }
        now.predict(dt: Double(t - tm) / 1000)
        let doubt = options.method == .beacons ? nil : self.doubt(window: fp, cells: model.sparseCells, middleMs: tm,
                                                                   x: now.x / m, y: now.y / m)
        let recent = recentKalman.note(now.accuracy, atMs: tm)
        let parts = doubt.map { AccuracyParts(kalmanM: now.accuracy, belief: $0, snapM: snaps.reach(atMs: tm), recentKalmanM: recent) }
        return TrackPoint(timeMs: t, map: mapID, floor: model.floor, x: now.x / m, y: now.y / m, metersPerUnit: m,
                          accuracyM: parts?.stated ?? now.accuracy, method: options.method,
                          transmittersUsed: fixes.map(\.transmitters).max() ?? 0, mapConfidence: confidence,
                          wknnFix: wknn, beaconsFix: beacons, accuracyParts: parts)
    }

    /// Weighs the belief over a sparse survey's cells by the window; how it lies around (x, y).
    private mutating func doubt(window fp: Fingerprint, cells: RadiomapCells?, middleMs tm: Int, x: Double,
                                y: Double) -> AccuracyParts.Belief? {
        guard let cells else { return nil }
        var f = doubtFilter ?? RadiomapFilter(cells: cells, speed: options.walkingSpeed)
        let set: RadioSet = fp.wifi.isEmpty ? .ble : fp.ble.isEmpty ? .wifi : .combined
        f.update(atMs: tm, reduced: Reduction.reduce(fp, set: set, options: SignalOptions()), bleOnly: set == .ble,
                 wifiOnly: set == .wifi)
        doubtFilter = f
        guard let mode = f.distanceToMode(fromX: x, y: y), let radius = f.radius(holding: 0.63, aroundX: x, y: y) else { return nil }
        return .init(modeM: mode, radiusM: radius, shareNear: f.share(withinM: AccuracyParts.nearM, ofX: x, y: y))
    }

    /// Positioning on the radiomap's cells: the belief moved to the window's
    /// middle and weighed by the window (and the beacon fix, fused). It tells
    /// where the walker was at the middle; by `t` they may have walked on at
    /// their pace, in a direction the belief cannot know, so that distance
    /// joins the accuracy rather than a guessed velocity the position.
    private mutating func cellPosition(atMs t: Int, middleMs tm: Int, window fp: Fingerprint, cells: RadiomapCells,
                                       model: MapModel, wknn: Fix?, beacons: Fix?, confidence: Double?) -> TrackPoint? {
        var f = cellFilter ?? RadiomapFilter(cells: cells, speed: options.walkingSpeed)
        let set: RadioSet = fp.wifi.isEmpty ? .ble : fp.ble.isEmpty ? .wifi : .combined
        let reduced = Reduction.reduce(fp, set: set, options: SignalOptions())
        f.update(atMs: tm, reduced: reduced, bleOnly: set == .ble, wifiOnly: set == .wifi,
                 beacons: options.method == .fused ? beacons : nil)
        cellFilter = f
        guard let e = f.estimate else { return nil }
        let walked = options.walkingSpeed * Double(t - tm) / 1000
        return TrackPoint(timeMs: t, map: model.id, floor: model.floor, x: e.x, y: e.y, metersPerUnit: model.metersPerUnit,
                          accuracyM: (e.varianceX + e.varianceY + walked * walked).squareRoot(), method: options.method,
                          transmittersUsed: max(reduced.count, beacons?.transmitters ?? 0), mapConfidence: confidence,
                          wknnFix: wknn, beaconsFix: beacons)
    }
}
