import FPCore

extension Export {
    /// Three CSV files in the spirit of COMFORD's common intermediate format
    /// for fingerprinting datasets (a sample table, an RSSI table, an AP
    /// table, joined by ids). The format's own specification was not among
    /// the references this was built from, so the columns are fprint's
    /// documented choice:
    /// - `Samples.csv`: sample_id (1…n in file order), doc_id, x, y (metres from
    ///   the map origin, to the micrometre), floor (the map's floor number, else empty), map,
    ///   timestamp (ms since 1970, the document's createdAt), mode;
    /// - `APs.csv`: ap_id (1…m, by first appearance), transmitter (eval's id),
    ///   radio (wifi|ble), address, name (SSID or BLE name);
    /// - `RSSI.csv`: sample_id, ap_id, rssi: one row per transmitter heard in a
    ///   sample, the median of its series (eval's reducer); unheard = no row.
    /// Metres to the micrometre, without binary noise (303 × 0.02 prints 6.06).
    static func metres(_ v: Double) -> String { String((v * 1e6).rounded() / 1e6) }

    package static func comford(_ docs: [Document], metersPerUnit: (String) -> Double, floor: (String) -> Int?)
        throws(FingerprintError) -> (samples: String, rssi: String, aps: String)
    {
        var samples = "sample_id,doc_id,x,y,floor,map,timestamp,mode\n"
        var rssi = "sample_id,ap_id,rssi\n"
        var aps = "ap_id,transmitter,radio,address,name\n"
        var apIndex: [String: Int] = [:]
        for (n, d) in docs.enumerated() {
            let fp = try Fingerprint(id: d.id, body: d.body)
            let m = metersPerUnit(fp.level)
            let created = ISOTime.milliseconds(text(d.body["createdAt"])).map(String.init) ?? ""
            samples += [String(n + 1), csvField(d.id), metres(Double(fp.x) * m), metres(Double(fp.y) * m),
                        floor(fp.level).map(String.init) ?? "", csvField(fp.level), created, csvCell(d.body["mode"])]
                .joined(separator: ",") + "\n"
            // Names by transmitter for the AP table.
            var names: [String: String] = [:]
            for s in d.body["wifiScans"]?.arrayValue ?? [] { names[Fingerprint.wifiID(text(s["mac"]))] = text(s["ssid"]) }
            for s in d.body["bleScans"]?.arrayValue ?? [] where names[Fingerprint.bleID(text(s["address"]))] == nil {
                names[Fingerprint.bleID(text(s["address"]))] = text(s["name"])
            }
            let reduced = Reduction.reduce(fp, set: .combined, options: SignalOptions())
            for id in reduced.keys.sorted() {
                let ap: Int
                if let known = apIndex[id] {
                    ap = known
                } else {
                    ap = apIndex.count + 1
                    apIndex[id] = ap
                    let ble = id.hasPrefix("BLE:")
                    aps += [String(ap), csvField(id), ble ? "ble" : "wifi", csvField(String(id.dropFirst(ble ? 4 : 5))),
                            csvField(names[id] ?? "")].joined(separator: ",") + "\n"
                }
                let v = reduced[id]!
                rssi += "\(n + 1),\(ap),\(v.rounded() == v ? String(Int(v)) : String(v))\n"
            }
        }
        return (samples, rssi, aps)
    }
}
