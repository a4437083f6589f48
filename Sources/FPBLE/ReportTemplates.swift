import FPCore
import FPHCI

/// A device repeats its advertisement: the same address, types and data
/// hundreds of times a minute. The entry `ReportMapper` decodes from them is
/// kept and reused, so each distinct advertisement is decoded once and its
/// entries share their strings (one address, hex and UUID text per
/// advertisement instead of per report: a 125,000-report replay allocated
/// three strings a report, a third of its time in page faults). Only RSSI,
/// time, controller and the report's own TX power differ between reports.
package struct ReportTemplates: Sendable {
    struct Key: Hashable {
        let address: BDAddress
        let addressType: UInt8
        /// Legacy PDU type, or 0x10000 | the extended event type bits.
        let eventType: UInt32
        let data: ArraySlice<UInt8>

        /// The data's bytes in one go (the element-wise hash of a slice was a third of the lookup).
        func hash(into hasher: inout Hasher) {
            hasher.combine(address.packed | UInt64(addressType) << 48)
            hasher.combine(eventType)
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// The entry of a report with time 0 and no RSSI, controller or report TX power.
    private var templates: [Key: (scan: BLEScan, adError: Bool)] = [:]
    /// At most this many kept (changing data, such as Eddystone TLM counters,
    /// would grow the table without end): full, it starts again.
    static let limit = 4096

    package init() {}

    /// What `ReportMapper.scan` gives for `r`, from the kept entry when the advertisement was seen before.
    package mutating func scan(_ r: AdvertisingReport, time: Int, controller: Int?) -> (BLEScan, adError: Bool) {
        let key = Key(address: r.address, addressType: r.addressType.rawValue, eventType: Self.code(r.eventType), data: r.data)
        let template: (scan: BLEScan, adError: Bool)
        if let kept = templates[key] {
            template = kept
        } else {
            var bare = r
            bare.rssi = nil
            bare.txPower = nil
            template = ReportMapper.scan(bare, time: 0)
            if templates.count >= Self.limit { templates.removeAll(keepingCapacity: true) }
            // A copy of the data: the report's slice would keep the whole event buffer (or capture) alive.
            templates[Key(address: key.address, addressType: key.addressType, eventType: key.eventType,
                          data: ArraySlice(Array(r.data)))] = template
        }
        var scan = template.scan
        scan.rssi = r.rssi.map(Int.init)
        scan.time = time
        scan.controller = controller
        // The report's own TX power (extended reports) wins over the AD's level, as in `ReportMapper.scan`.
        if let power = r.txPower { scan.txPower = Int(power) }
        return (scan, template.adError)
    }

    static func code(_ type: AdvertisingEventType) -> UInt32 {
        switch type {
        case .legacy(let pdu): UInt32(pdu.rawValue)
        case .extended(let bits): 0x10000 | UInt32(bits)
        }
    }
}
