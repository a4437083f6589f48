import FPAnalysis
import FPCore
import Foundation

/// Whole documents read for a page that needs their scans (heatmaps,
/// coverage, beacon health), off the cooperative pool and bounded in number.
enum SurveyReads {
    /// The fingerprints of `map`'s documents (all maps: nil), at most `limit`;
    /// documents eval cannot read are left out (the CLI names them; a page only draws).
    static func fingerprints(_ store: any ReplicableStore, map: String?, limit: Int) async throws -> [Fingerprint] {
        try await BlockingWork.run("fprint.dashboard.store") { () throws -> [Fingerprint] in
            let names = TransmitterNames()
            var out: [Fingerprint] = []
            for summary in try store.list(ListQuery(level: map, limit: limit)) {
                guard let rev = Revision(summary.rev), let text = try store.revisionText(id: summary.id, rev: rev),
                      let fp = try? Fingerprint(id: summary.id, text: text.canonicalBody, names: names) else { continue }
                out.append(fp)
            }
            return out
        }
    }

    /// Registry beacons' reports (RSSI, Eddystone-TLM battery and
    /// temperature) by `Entry.id`, from the latest `limit` documents, for
    /// `BeaconHealth.assess`: read as `fprint beacons --health` reads them.
    static func sightings(_ store: any ReplicableStore, registries: [BeaconRegistry], limit: Int) async throws -> [String: [BeaconSighting]] {
        try await BlockingWork.run("fprint.dashboard.store") { () throws -> [String: [BeaconSighting]] in
            var out: [String: [BeaconSighting]] = [:]
            for summary in try store.list(ListQuery(limit: limit)) {
                guard let rev = Revision(summary.rev), let text = try store.revisionText(id: summary.id, rev: rev) else { continue }
                for (mac, seen) in BeaconSighting.reports(in: text.canonicalBody, registries: registries) { out[mac, default: []] += seen }
            }
            return out
        }
    }

    /// An SVG document of the plots, inline in a page: without its XML declaration.
    static func inline(_ svg: String) -> String {
        guard svg.hasPrefix("<?xml"), let end = svg.firstIndex(of: "\n") else { return svg }
        return String(svg[svg.index(after: end)...])
    }
}
