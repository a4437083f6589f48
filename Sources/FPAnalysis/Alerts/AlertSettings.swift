import FPCore
import Foundation

/// The app config's `alerts` member: the rules and where events are posted.
///
/// ```json
/// "alerts": {
///   "rules": [{"id": "slow-down", "figure": "download", "compare": "<", "limit": "5 Mbit/s",
///              "map": "J1NP", "hold": "10 min"}],
///   "webhook": "https://hooks.example.org/fprint"
/// }
/// ```
/// A rule's scope is at most one of `map`, `beacon` (a MAC) and `link` (an
/// interface name or an SSID); `hold` is optional.
package struct AlertSettings: Sendable, Equatable {
    package var rules: [AlertRule] = []
    package var webhook: String?

    package init(rules: [AlertRule] = [], webhook: String? = nil) {
        self.rules = rules
        self.webhook = webhook
    }

    /// Reads `alerts` (nil or null: no rules); errors name the JSON path, e.g.
    /// `$.alerts.rules[0].limit: "5" has no unit: write it with Mbit/s (or kbit/s, Gbit/s, bit/s)`.
    package init(json: JSONValue?) throws(AlertRuleError) {
        guard let json, json != .null else { return }
        guard let o = json.objectValue else { throw AlertRuleError("$.alerts: expected an object {rules, webhook}") }
        if let hook = o["webhook"], hook != .null {
            guard let url = hook.stringValue else { throw AlertRuleError("$.alerts.webhook: expected an http(s) URL") }
            if let why = Self.checkWebhook(url) { throw AlertRuleError("$.alerts.webhook: \(why)") }
            webhook = url
        }
        guard let list = o["rules"], list != .null else { return }
        guard let items = list.arrayValue else { throw AlertRuleError("$.alerts.rules: expected an array") }
        var seen: Set<String> = []
        for (i, item) in items.enumerated() {
            let path = "$.alerts.rules[\(i)]"
            let rule: AlertRule
            do { rule = try Self.rule(item) } catch { throw AlertRuleError("\(path)\(error.description)") }
            guard seen.insert(rule.id).inserted else { throw AlertRuleError("\(path).id: duplicate rule id \"\(rule.id)\"") }
            rules.append(rule)
        }
    }

    /// nil when `url` is an http(s) URL with a host, else why not.
    package static func checkWebhook(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else {
            return "the webhook must be an http:// or https:// URL, found \"\(url)\""
        }
        guard let host = parts.host, !host.isEmpty else { return "the webhook URL \"\(url)\" has no host" }
        return nil
    }

    /// One rule; errors start with the member they are about (".limit: …").
    static func rule(_ item: JSONValue) throws(AlertRuleError) -> AlertRule {
        guard let o = item.objectValue else { throw AlertRuleError(": expected an object") }
        func text(_ key: String) throws(AlertRuleError) -> String {
            guard let s = o[key]?.stringValue, !s.isEmpty else { throw AlertRuleError(".\(key): missing (expected a string)") }
            return s
        }
        let id = try text("id")
        if let why = checkID(id) { throw AlertRuleError(".id: \(why)") }
        let figureName = try text("figure")
        guard let figure = AlertFigure(rawValue: figureName) else {
            throw AlertRuleError(".figure: \(unknownFigure(figureName))")
        }
        let compareText = try text("compare")
        guard let comparison = AlertComparison(rawValue: compareText) else {
            throw AlertRuleError(".compare: \"\(compareText)\" is not a comparison: use <, <=, > or >=")
        }
        let limit: Double
        switch figure.unit.parse(try text("limit")) {
        case .success(let v): limit = v
        case .failure(let e): throw AlertRuleError(".limit: \(e.description)")
        }
        var holdMs: Int64 = 0
        if o["hold"] != nil && o["hold"] != .null {
            switch AlertUnit.parseDuration(try text("hold")) {
            case .success(let ms): holdMs = ms
            case .failure(let e): throw AlertRuleError(".hold: \(e.description)")
            }
        }
        let named = ["map", "beacon", "link"].filter { o[$0] != nil && o[$0] != .null }
        guard named.count <= 1 else { throw AlertRuleError(": give at most one of map, beacon and link, found \(named.joined(separator: ", "))") }
        var scope = AlertScope.everywhere
        if let key = named.first {
            let value = try text(key)
            switch key {
            case "map": scope = .map(value)
            case "beacon":
                // A MAC, or the identity the beacon advertises (matched first, whatever its address).
                guard let id = normalisedMAC(value).map(BeaconIdentity.mac) ?? BeaconIdentity(text: value) else {
                    throw AlertRuleError(".beacon: \"\(value)\" is not a MAC address (AA:BB:CC:DD:EE:FF) or a beacon identity (ibeacon:UUID:MAJOR:MINOR, eddystone:NAMESPACE:INSTANCE)")
                }
                scope = .beacon(id.text)
            default: scope = .link(value)
            }
        }
        if let why = figure.check(scope) { throw AlertRuleError(": \(why)") }
        if figure == .silence, comparison == .below || comparison == .belowOrAt {
            throw AlertRuleError(".compare: silence is watched for being too long: use > or >=")
        }
        return AlertRule(id: id, figure: figure, scope: scope, comparison: comparison, limit: limit, holdMs: holdMs)
    }

    /// "\"speed\" is not a figure: use download, upload, …".
    package static func unknownFigure(_ name: String) -> String {
        "\"\(name)\" is not a figure: use " + AlertFigure.allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// Rule ids are short names the CLI and the webhook carry.
    package static func checkID(_ id: String) -> String? {
        let ok = !id.isEmpty && id.count <= 64 && id.unicodeScalars.allSatisfy {
            $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
        } && !id.hasPrefix("-")
        return ok ? nil : "\"\(id)\" cannot be a rule id: use up to 64 letters, digits, '.', '_' or '-', not starting with '-'"
    }

    package static func normalisedMAC(_ text: String) -> String? {
        let parts = text.uppercased().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return parts.joined(separator: ":")
    }
}
