import FPCore
import FPHCI
import FPHex

/// Turns HCI advertising reports into document entries (`bleScans[]`).
///
/// The report itself (address, RSSI, type) is always kept; advertising data
/// that does not decode is still stored raw (`data`) and counted, because a
/// bad AD structure from one device must not lose the RSSI sample.
package enum ReportMapper {
    package static func scan(_ r: AdvertisingReport, time: Int, controller: Int? = nil) -> (BLEScan, adError: Bool) {
        var scan = BLEScan(
            address: r.address.description, addressType: r.addressType.name,
            rssi: r.rssi.map(Int.init), time: time, eventType: r.eventType.name,
            txPower: r.txPower.map(Int.init))
        scan.controller = controller
        if !r.data.isEmpty { scan.data = Hex.string(r.data) }
        let ad: AdvertisingData
        do { ad = try AdvertisingData(bytes: r.data) } catch { return (scan, true) }
        scan.name = ad.name
        if scan.txPower == nil, let level = ad.txPowerLevel { scan.txPower = Int(level) }
        scan.companyId = ad.manufacturer.first.map { Int($0.companyID) }
        if !ad.serviceUUIDs.isEmpty { scan.serviceUuids = ad.serviceUUIDs }
        scan.beacon = BeaconFrame.decode(ad).map(beacon)
        return (scan, false)
    }

    package static func beacon(_ frame: BeaconFrame) -> Beacon {
        switch frame {
        case let .iBeacon(uuid, major, minor, power):
            return Beacon(type: "ibeacon", uuid: uuid, major: Int(major), minor: Int(minor), measuredPower: Int(power))
        case let .altBeacon(company, uuid, major, minor, ref):
            var b = Beacon(type: "altbeacon", uuid: uuid, major: Int(major), minor: Int(minor), measuredPower: Int(ref))
            b.companyId = Int(company)
            return b
        case let .eddystoneUID(tx, namespace, instance):
            return Beacon(type: "eddystone-uid", measuredPower: Int(tx), namespace: namespace, instance: instance)
        case let .eddystoneURL(tx, url):
            return Beacon(type: "eddystone-url", measuredPower: Int(tx), url: url)
        case let .eddystoneTLM(mv, temp, count, uptime):
            var b = Beacon(type: "eddystone-tlm")
            b.batteryMilliVolts = Int(mv)
            b.temperature = temp
            b.advertisingCount = Int(count)
            b.uptimeTenths = Int(uptime)
            return b
        }
    }

    /// A short human label of a beacon id for tables: `ibeacon FB0B57A2-…/1/53`.
    package static func label(_ b: Beacon?) -> String {
        guard let b else { return "" }
        switch b.type {
        case "ibeacon", "altbeacon": return "\(b.type) \(b.uuid ?? "?") \(b.major ?? 0)/\(b.minor ?? 0)"
        case "eddystone-uid": return "eddystone \(b.namespace ?? "?")/\(b.instance ?? "?")"
        case "eddystone-url": return "eddystone \(b.url ?? "?")"
        default: return b.type
        }
    }
}

/// Decodes H4/monitor packets into scans and counts what it had to skip.
package struct EventDecoder: Sendable {
    package private(set) var malformed = 0
    package private(set) var adErrors = 0
    package private(set) var lastError: HCIParseError?
    /// Advertisements decoded before, reused for the reports that repeat them.
    private var templates = ReportTemplates()

    package init() {}

    /// Scans in one HCI event (parameters without the H4 byte); a malformed
    /// event is counted and yields nothing.
    package mutating func scans(event packet: ArraySlice<UInt8>, time: Int, controller: Int? = nil) -> [BLEScan] {
        var out: [BLEScan] = []
        append(event: packet, time: time, controller: controller, to: &out)
        return out
    }

    /// The same, appended to `scans` (a replay decodes 100,000s: no array per event).
    package mutating func append(event packet: ArraySlice<UInt8>, time: Int, controller: Int? = nil, to scans: inout [BLEScan]) {
        let event: HCIEvent
        do { event = try HCIEvent(bytes: packet) } catch {
            count(error)
            return
        }
        append(event: event, time: time, controller: controller, to: &scans)
    }

    /// Scans in an event already parsed (one the command engine caught).
    package mutating func scans(event: HCIEvent, time: Int, controller: Int? = nil) -> [BLEScan] {
        var out: [BLEScan] = []
        append(event: event, time: time, controller: controller, to: &out)
        return out
    }

    package mutating func append(event: HCIEvent, time: Int, controller: Int? = nil, to scans: inout [BLEScan]) {
        let reports: [AdvertisingReport]
        do { reports = try AdvertisingReports.parse(event) } catch {
            count(error)
            return
        }
        // Read in place: `for r in reports` copied each report, retaining its data.
        reports.withUnsafeBufferPointer { reports in
            for i in reports.indices {
                let (scan, bad) = templates.scan(reports[i], time: time, controller: controller)
                if bad { adErrors += 1 }
                scans.append(scan)
            }
        }
    }

    private mutating func count(_ error: HCIParseError) {
        malformed += 1
        lastError = error
    }
}
