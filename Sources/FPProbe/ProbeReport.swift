import FPCore

/// One phase of a probe as the client reports it: its status, why, and the
/// server's signed result (whose figures are copied beside it for reading).
public struct ProbePhase: Sendable {
    public var name: String
    public var status: ProbeStatus
    public var reason: String?
    /// `{"result", "signature"}` as the server sent it; nil for the client-measured ICMP ping.
    public var signed: JSONValue?
    /// The figures (bitsPerSecond, loss…, rttMs…), from the signed result or measured here.
    public var figures: JSONObject

    public init(name: String, status: ProbeStatus, reason: String? = nil, signed: JSONValue? = nil, figures: JSONObject = JSONObject()) {
        (self.name, self.status, self.reason, self.signed, self.figures) = (name, status, reason, signed, figures)
    }

    /// How the reason of a phase skipped after one that could not connect begins.
    public static let notRunPrefix = "not run: "

    static func failed(_ name: String, _ status: ProbeStatus, _ reason: String) -> ProbePhase {
        ProbePhase(name: name, status: status, reason: reason)
    }

    /// The keys of a server result that are figures (the rest identify it).
    static let figureKeys: Set<String> = [
        "bytes", "seconds", "bitsPerSecond", "truncated", "datagrams", "sent", "receivedByServer", "echoesReceived",
        "spacingMs", "lossUpPercent", "lossDownPercent", "jitterUpMs", "jitterDownMs", "rttMs",
    ]

    public var json: JSONValue {
        var members: [JSONObject.Member] = [("phase", .string(name)), ("status", .string(status.rawValue)),
                                            ("statusCode", .int(Int64(status.code)))]
        if let reason { members.append(("reason", .string(reason))) }
        members += figures.members
        if let signed { members.append(("signed", signed)) }
        return .object(JSONObject(members: members))
    }
}

/// The network interface the probe's traffic left by.
public struct ProbeInterface: Sendable {
    public var name: String
    /// wifi, ethernet, cellular, loopback, virtual or other.
    public var type: String
    public var ssid: String?
    public var bssid: String?
    public var `operator`: String?
    /// Wi-Fi: the signal last heard from the access point (dBm) and its frequency (MHz).
    public var signalDBm: Int?
    public var frequencyMHz: Int?
    /// Cellular: the serving cell as ModemManager reports it.
    public var cell: CellScan?

    public init(name: String, type: String, ssid: String? = nil, bssid: String? = nil, operator: String? = nil) {
        (self.name, self.type, self.ssid, self.bssid, self.operator) = (name, type, ssid, bssid, `operator`)
    }

    public var json: JSONValue {
        var v: JSONValue = ["name": .string(name), "type": .string(type)]
        if let ssid { v["ssid"] = .string(ssid) }
        if let bssid { v["bssid"] = .string(bssid) }
        if let `operator` { v["operator"] = .string(`operator`) }
        if let signalDBm { v["signalDbm"] = .int(Int64(signalDBm)) }
        if let frequencyMHz { v["frequencyMHz"] = .int(Int64(frequencyMHz)) }
        if let cell, let cellJSON = try? CanonicalJSON.value(of: cell) { v["cell"] = cellJSON }
        return v
    }
}

/// A whole probe: one element of a document's `networkProbes[]`, and `fprint probe --json`'s object.
public struct ProbeReport: Sendable {
    public var server: String
    public var startedAt: String
    public var endedAt: String
    public var interface: ProbeInterface?
    public var phases: [ProbePhase]

    public var json: JSONValue {
        var v: JSONValue = ["server": .string(server), "startedAt": .string(startedAt), "endedAt": .string(endedAt),
                            "phases": .array(phases.map(\.json))]
        if let interface { v["interface"] = interface.json }
        return v
    }

    public func phase(_ name: String) -> ProbePhase? { phases.first { $0.name == name } }
}
