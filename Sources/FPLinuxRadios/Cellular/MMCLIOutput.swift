import FPCore
import Foundation

/// Parsers for ModemManager's `mmcli -J` output. mmcli prints every value as
/// a string and `--` for "not known"; cell ids and area codes are hexadecimal.
package enum MMCLIOutput {
    package struct ParseError: Error, CustomStringConvertible {
        package let description: String
    }

    /// What `mmcli -m N -J` says about the modem and its registration.
    package struct Modem: Sendable, Equatable {
        package var state: String?
        package var failedReason: String?
        package var accessTechnologies: [String]
        package var signalPercent: Int?
        package var operatorCode: String?
        package var operatorName: String?
        package var registrationState: String?
        package var simPath: String?
        package var model: String?
    }

    /// `mmcli -m N --location-get -J` → `modem.location.3gpp`.
    package struct Location3GPP: Sendable, Equatable {
        package var mcc: String?
        package var mnc: String?
        package var lac: Int?
        package var tac: Int?
        package var cid: Int?
    }

    /// `mmcli -m N --signal-get -J`: per technology.
    package struct Signal: Sendable, Equatable {
        package var values: [String: [String: Double]]
        package func value(_ tech: String, _ key: String) -> Double? { values[tech]?[key] }
    }

    static func object(_ text: String) throws(ParseError) -> [String: Any] {
        guard let data = text.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ParseError(description: "mmcli printed something that is not a JSON object") }
        return obj
    }

    /// mmcli's "--" (and empty) mean absent.
    static func string(_ any: Any?) -> String? {
        guard let s = any as? String else { return nil }
        let t = s.trimmingCharacters(in: .whitespaces)
        return t.isEmpty || t == "--" ? nil : t
    }

    static func hex(_ any: Any?) -> Int? { string(any).flatMap { Int($0, radix: 16) } }

    /// `-L -J` → the modem indexes (`/org/freedesktop/ModemManager1/Modem/3` → 3).
    package static func modemList(_ text: String) throws(ParseError) -> [Int] {
        guard let list = try object(text)["modem-list"] as? [Any] else {
            throw ParseError(description: "mmcli -L -J has no modem-list")
        }
        return list.compactMap { ($0 as? String)?.split(separator: "/").last.flatMap { Int($0) } }
    }

    package static func modem(_ text: String) throws(ParseError) -> Modem {
        guard let m = try object(text)["modem"] as? [String: Any] else {
            throw ParseError(description: "mmcli -m -J has no modem object")
        }
        let generic = m["generic"] as? [String: Any] ?? [:]
        let gpp = m["3gpp"] as? [String: Any] ?? [:]
        let quality = generic["signal-quality"] as? [String: Any]
        return Modem(
            state: string(generic["state"]), failedReason: string(generic["state-failed-reason"]),
            accessTechnologies: (generic["access-technologies"] as? [Any] ?? []).compactMap { string($0) },
            signalPercent: string(quality?["value"]).flatMap { Int($0) },
            operatorCode: string(gpp["operator-code"]), operatorName: string(gpp["operator-name"]),
            registrationState: string(gpp["registration-state"]), simPath: string(generic["sim"]),
            model: string(generic["model"]))
    }

    /// `mmcli -i N -J` → the SIM's home network code (MCC+MNC).
    package static func simOperatorCode(_ text: String) throws(ParseError) -> String? {
        let sim = try object(text)["sim"] as? [String: Any]
        return string((sim?["properties"] as? [String: Any])?["operator-code"])
    }

    package static func location(_ text: String) throws(ParseError) -> Location3GPP? {
        let loc = (try object(text)["modem"] as? [String: Any])?["location"] as? [String: Any]
        guard let g = loc?["3gpp"] as? [String: Any] else { return nil }
        // A LAC of 0 on LTE means "no location area" (the network uses TAC): drop it.
        let lac = hex(g["lac"]).flatMap { $0 == 0 ? nil : $0 }
        return Location3GPP(mcc: string(g["mcc"]), mnc: string(g["mnc"]), lac: lac, tac: hex(g["tac"]),
                            cid: hex(g["cid"]))
    }

    package static func signal(_ text: String) throws(ParseError) -> Signal {
        let s = (try object(text)["modem"] as? [String: Any])?["signal"] as? [String: Any] ?? [:]
        var values: [String: [String: Double]] = [:]
        for (tech, block) in s {
            guard let block = block as? [String: Any], !["refresh", "threshold"].contains(tech) else { continue }
            for (k, v) in block { if let d = string(v).flatMap(Double.init) { values[tech, default: [:]][k] = d } }
        }
        return Signal(values: values)
    }

    /// MCC is always three digits; the rest (two or three) is the MNC.
    package static func splitPLMN(_ code: String?) -> (mcc: String, mnc: String)? {
        guard let code, code.count >= 5, code.count <= 6, code.allSatisfy(\.isNumber) else { return nil }
        return (String(code.prefix(3)), String(code.dropFirst(3)))
    }

    /// The document's cell `type` for ModemManager's access-technology words.
    package static func cellType(_ techs: [String]) -> String? {
        let set = Set(techs)
        if set.contains("5gnr") { return "nr" }
        if set.contains("lte") || set.contains("lte-cat-m") || set.contains("lte-nb-iot") { return "lte" }
        if !set.isDisjoint(with: ["umts", "hsdpa", "hsupa", "hspa", "hspa-plus"]) { return "umts" }
        if !set.isDisjoint(with: ["gsm", "gsm-compact", "gprs", "edge"]) { return "gsm" }
        if !set.isDisjoint(with: ["1xrtt", "evdo0", "evdoa", "evdob"]) { return "cdma" }
        return nil
    }

    /// One serving-cell entry from what the modem, SIM, location and signal interfaces said.
    package static func servingCell(modem: Modem, simOperatorCode: String?, location: Location3GPP?, signal: Signal?,
                                   atMs ms: Int) -> CellScan {
        let type = cellType(modem.accessTechnologies)
        let plmn = splitPLMN(modem.operatorCode)
        var cell = CellScan(rssi: nil, time: ms, type: type, cid: location?.cid, lac: location?.lac,
                            mcc: location?.mcc ?? plmn?.mcc, mnc: location?.mnc ?? plmn?.mnc, serving: true)
        cell.tac = location?.tac
        cell.operatorName = modem.operatorName
        if let reg = modem.registrationState { cell.roaming = reg == "roaming" }
        if let home = splitPLMN(simOperatorCode) {
            cell.homeMcc = home.mcc
            cell.homeMnc = home.mnc
        }
        cell.accessTechnology = modem.accessTechnologies.isEmpty ? nil : modem.accessTechnologies.joined(separator: ", ")
        if let signal {
            // Only the active technology's block: mmcli keeps stale values for the others.
            let block = switch type { case "nr": "5g"; case "lte": "lte"; case "umts": "umts"; case "gsm": "gsm"; default: "" }
            cell.rssi = signal.value(block, "rssi").map { Int($0.rounded()) }
            cell.rsrp = signal.value(block, "rsrp")
            cell.rsrq = signal.value(block, "rsrq")
            cell.sinr = signal.value(block, "snr") ?? signal.value(block, "sinr")
        }
        return cell
    }
}
