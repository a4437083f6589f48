import FPCore
import Foundation

/// The radio world of one floor, as the simulated providers see it: where each
/// transmitter stands on the floor plan and how its signal falls off.
///
/// Loaded from a radio environment file (format: RadioEnvironmentParser.swift
/// and Config/environments/README.md). Every value here has been validated.
package struct RadioEnvironment: Sendable, Equatable {
    /// The map id this floor's coordinates belong to, e.g. `J3NP`.
    package var map: String
    /// Human-readable title; the map id when the file gives none.
    package var name: String
    /// Where it came from (the file name): provider statuses say `simulated:<source>`.
    package var source: String
    /// The seed the file suggests when the command line gives none.
    package var seed: UInt64?
    package var scale: MapScale
    package var propagation: Propagation
    /// nil: the floor has no geographic anchor, so the simulated GNSS is unavailable.
    package var geo: GeoAnchor?
    package var ble: [BLETransmitter]
    package var wifi: [WiFiAccessPoint]
    package var cells: [Cell]

    package init(map: String, name: String? = nil, source: String, seed: UInt64? = nil, scale: MapScale = .jBuilding,
                propagation: Propagation = Propagation(), geo: GeoAnchor? = nil,
                ble: [BLETransmitter] = [], wifi: [WiFiAccessPoint] = [], cells: [Cell] = []) {
        self.map = map
        self.name = name ?? map
        self.source = source
        self.seed = seed
        self.scale = scale
        self.propagation = propagation
        self.geo = geo
        self.ble = ble
        self.wifi = wifi
        self.cells = cells
    }

    /// Log-distance path loss with Gaussian shadowing, shared by every radio:
    /// RSSI = reference power at 1 m − 10·n·log10(max(d, 0.5 m)) + N(0, σ).
    package struct Propagation: Sendable, Equatable {
        /// n: 2 in free space, ~1.6–3.5 indoors.
        package var pathLossExponent: Double
        /// σ of the per-sample shadowing / fading noise.
        package var shadowingSigmaDb: Double
        /// Samples weaker than this are not heard at all.
        package var sensitivityDbm: Double
        /// nil: the ideal law alone; else lasting shadowing, another device, aged beacons (`Realism`).
        package var realism: Realism?

        package init(pathLossExponent: Double = 2.2, shadowingSigmaDb: Double = 4, sensitivityDbm: Double = -100) {
            self.pathLossExponent = pathLossExponent
            self.shadowingSigmaDb = shadowingSigmaDb
            self.sensitivityDbm = sensitivityDbm
        }

        /// Closer than this the log law stops making sense (near field, antenna size).
        package static let minimumDistanceM = 0.5

        /// The mean RSSI (no noise) at a distance in metres.
        package func meanRSSI(at1m: Double, distanceM: Double) -> Double {
            at1m - 10 * pathLossExponent * log10(max(distanceM, Propagation.minimumDistanceM))
        }
    }

    /// Ties map units to WGS-84: a map point with known lat/long and the map's bearing.
    package struct GeoAnchor: Sendable, Equatable {
        package var originLat: Double
        package var originLong: Double
        /// The map point (map units) that sits at originLat/originLong.
        package var originX: Double
        package var originY: Double
        /// Bearing of the map's "up" (−y when y grows down) from true north, clockwise.
        package var rotationDeg: Double
        /// Floor plans are images, so y grows downward (south when rotationDeg is 0) unless this is false.
        package var yAxisDown: Bool
        /// RMS horizontal error of the simulated fixes, metres; also reported as `accuracy`.
        package var accuracyM: Double
        /// Altitude reported with each fix, metres above sea level; nil: no altitude.
        package var altM: Double?

        package init(originLat: Double, originLong: Double, originX: Double = 0, originY: Double = 0,
                    rotationDeg: Double = 0, yAxisDown: Bool = true, accuracyM: Double = 10, altM: Double? = nil) {
            self.originLat = originLat
            self.originLong = originLong
            self.originX = originX
            self.originY = originY
            self.rotationDeg = rotationDeg
            self.yAxisDown = yAxisDown
            self.accuracyM = accuracyM
            self.altM = altM
        }

        /// Metres east and north of the origin for a map point.
        package func eastNorth(of point: MapPoint, scale: MapScale) -> (east: Double, north: Double) {
            let right = (point.x - originX) * scale.metersPerUnit
            let up = (point.y - originY) * scale.metersPerUnit * (yAxisDown ? -1 : 1)
            // Rotate the map frame (right, up) clockwise by the bearing of "up".
            let theta = rotationDeg * .pi / 180
            return (right * cos(theta) + up * sin(theta), -right * sin(theta) + up * cos(theta))
        }

        /// Latitude/longitude of a point a few hundred metres from the origin at most.
        package func coordinate(east: Double, north: Double) -> (lat: Double, long: Double) {
            LocalTangentPlane(originLat: originLat, originLong: originLong).coordinate(east: east, north: north)
        }

        package func coordinate(of point: MapPoint, scale: MapScale) -> (lat: Double, long: Double) {
            let en = eastNorth(of: point, scale: scale)
            return coordinate(east: en.east, north: en.north)
        }
    }

    /// A BLE advertiser (usually a beacon) on the floor.
    package struct BLETransmitter: Sendable, Equatable {
        /// `AA:BB:CC:DD:EE:FF`, upper case.
        package var address: String
        /// `public` or `random`.
        package var addressType: String
        package var position: MapPoint
        /// RSSI at 1 m, dBm (iBeacon "measured power"); also advertised in `beacon`.
        package var measuredPower: Int
        /// advInterval; each advert adds the spec's 0–10 ms random advDelay.
        package var intervalMs: Int
        package var name: String?
        /// Decoded beacon identity reported with every advert (measuredPower included).
        package var beacon: Beacon?

        package init(address: String, addressType: String = "public", position: MapPoint, measuredPower: Int = -66,
                    intervalMs: Int = 100, name: String? = nil, beacon: Beacon? = nil) {
            self.address = address
            self.addressType = addressType
            self.position = position
            self.measuredPower = measuredPower
            self.intervalMs = intervalMs
            self.name = name
            self.beacon = beacon
        }

        /// Beacons advertise non-connectable; other devices connectable undirected.
        package var eventType: String { beacon == nil ? "ADV_IND" : "ADV_NONCONN_IND" }
    }

    /// One BSS (a radio of an access point broadcasting one SSID).
    package struct WiFiAccessPoint: Sendable, Equatable {
        package var mac: String
        package var ssid: String
        package var position: MapPoint
        /// Centre frequency, MHz.
        package var frequency: Int
        /// RSSI at 1 m, dBm.
        package var rssiAt1m: Double

        package init(mac: String, ssid: String, position: MapPoint, frequency: Int, rssiAt1m: Double = -35) {
            self.mac = mac
            self.ssid = ssid
            self.position = position
            self.frequency = frequency
            self.rssiAt1m = rssiAt1m
        }

        package var channel: Int? { WiFiChannel.number(frequencyMHz: frequency) }
    }

    /// A cellular cell; its position is usually far off the floor plan (a mast
    /// hundreds of metres away), so its level barely changes across the floor.
    package struct Cell: Sendable, Equatable {
        /// `gsm`, `umts`, `lte` or `nr`.
        package var type: String
        /// Cell identity (LTE: 28-bit ECI).
        package var cid: Int
        /// Location / tracking area code (LTE: TAC).
        package var lac: Int
        /// Primary scrambling code (UMTS) or physical cell id (LTE/NR).
        package var psc: Int?
        package var mcc: String
        package var mnc: String
        package var serving: Bool
        package var position: MapPoint
        /// Model reference power at 1 m, chosen so the level on the floor is right.
        package var rssiAt1m: Double

        package init(type: String, cid: Int, lac: Int, psc: Int? = nil, mcc: String, mnc: String, serving: Bool = false,
                    position: MapPoint, rssiAt1m: Double) {
            self.type = type
            self.cid = cid
            self.lac = lac
            self.psc = psc
            self.mcc = mcc
            self.mnc = mnc
            self.serving = serving
            self.position = position
            self.rssiAt1m = rssiAt1m
        }
    }
}

/// Wi-Fi channel numbers (IEEE 802.11 channel plans for 2.4, 5 and 6 GHz).
package enum WiFiChannel {
    /// nil when the frequency is not a channel centre of those bands.
    package static func number(frequencyMHz f: Int) -> Int? {
        switch f {
        case 2484: 14
        case 2412...2472 where (f - 2407) % 5 == 0: (f - 2407) / 5
        case 5160...5885 where f % 5 == 0: (f - 5000) / 5
        case 5955...7115 where (f - 5950) % 5 == 0: (f - 5950) / 5
        default: nil
        }
    }
}
