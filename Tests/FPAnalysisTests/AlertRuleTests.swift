import FPCore
import Foundation
import Testing
@testable import FPAnalysis

@Suite struct AlertRuleTests {
    func rules(_ json: String) throws -> AlertSettings {
        try AlertSettings(json: CanonicalJSON.parse(Data(json.utf8)))
    }

    func error(_ json: String) -> String? {
        do { _ = try rules(json); return nil } catch let e as AlertRuleError { return e.description } catch { return "\(error)" }
    }

    @Test func readsEveryPartOfARule() throws {
        let s = try rules(#"{"rules": [{"id": "slow", "figure": "download", "compare": "<", "limit": "500 kbit/s", "map": "J1NP", "hold": "10 min"},"#
            + #"{"id": "weak", "figure": "rssi", "compare": "<=", "limit": "-80dBm", "beacon": "aa:bb:cc:dd:ee:01"},"#
            + #"{"id": "quiet", "figure": "silence", "compare": ">", "limit": "2 h", "beacon": "AA:BB:CC:DD:EE:01"},"#
            + #"{"id": "lossy", "figure": "loss", "compare": ">=", "limit": "2.5 %", "link": "eduroam"}],"#
            + #""webhook": "https://hooks.example.org/fprint"}"#)
        #expect(s.webhook == "https://hooks.example.org/fprint")
        #expect(s.rules == [
            AlertRule(id: "slow", figure: .download, scope: .map("J1NP"), comparison: .below, limit: 500_000, holdMs: 600_000),
            AlertRule(id: "weak", figure: .rssi, scope: .beacon("AA:BB:CC:DD:EE:01"), comparison: .belowOrAt, limit: -80),
            AlertRule(id: "quiet", figure: .silence, scope: .beacon("AA:BB:CC:DD:EE:01"), comparison: .above, limit: 7_200_000),
            AlertRule(id: "lossy", figure: .loss, scope: .link("eduroam"), comparison: .aboveOrAt, limit: 2.5),
        ])
        #expect(s.rules[0].summary == "download < 0.5 Mbit/s on map J1NP for 10 min")
    }

    @Test func noAlertsMemberMeansNoRules() throws {
        #expect(try AlertSettings(json: nil) == AlertSettings())
        #expect(try rules("null") == AlertSettings())
    }

    @Test(arguments: [
        (#"{"rules": [{"id": "a", "figure": "speed", "compare": "<", "limit": "5 Mbit/s"}]}"#,
         "$.alerts.rules[0].figure: \"speed\" is not a figure: use download, upload, rtt, loss, jitter, rssi, silence, coverage"),
        (#"{"rules": [{"id": "a", "figure": "download", "compare": "<", "limit": "5"}]}"#,
         "$.alerts.rules[0].limit: \"5\" has no unit: write it with Mbit/s (or kbit/s, Gbit/s, bit/s)"),
        (#"{"rules": [{"id": "a", "figure": "rtt", "compare": ">", "limit": "5 Mbit/s"}]}"#,
         "$.alerts.rules[0].limit: \"Mbit/s\" is not a unit here: write ms"),
        (#"{"rules": [{"id": "a", "figure": "rtt", "compare": "=>", "limit": "5 ms"}]}"#,
         "$.alerts.rules[0].compare: \"=>\" is not a comparison: use <, <=, > or >="),
        (#"{"rules": [{"id": "a", "figure": "rtt", "compare": ">", "limit": "5 ms", "hold": "10"}]}"#,
         "$.alerts.rules[0].hold: \"10\" has no unit: write it with s, min, h or d"),
        (#"{"rules": [{"id": "a", "figure": "rssi", "compare": "<", "limit": "-80 dBm", "map": "J1NP"}]}"#,
         "$.alerts.rules[0]: rssi is a beacon's figure: give the beacon (--beacon MAC)"),
        (#"{"rules": [{"id": "a", "figure": "rtt", "compare": ">", "limit": "5 ms", "map": "J1NP", "link": "wlan0"}]}"#,
         "$.alerts.rules[0]: give at most one of map, beacon and link, found map, link"),
        (#"{"rules": [{"id": "a", "figure": "rtt", "compare": ">", "limit": "5 ms"}, {"id": "a", "figure": "loss", "compare": ">", "limit": "1 %"}]}"#,
         "$.alerts.rules[1].id: duplicate rule id \"a\""),
        (#"{"webhook": "ftp://example.org/x"}"#,
         "$.alerts.webhook: the webhook must be an http:// or https:// URL, found \"ftp://example.org/x\""),
        (#"{"rules": [{"id": "q", "figure": "silence", "compare": "<", "limit": "1 h", "beacon": "AA:BB:CC:DD:EE:01"}]}"#,
         "$.alerts.rules[0].compare: silence is watched for being too long: use > or >="),
    ])
    func refusesWithOneLineNamingThePlace(json: String, message: String) {
        #expect(error(json) == message)
    }

    @Test func unitsConvertToTheBaseUnit() throws {
        #expect(try AlertUnit.rate.parse("2 Gbit/s").get() == 2e9)
        #expect(try AlertUnit.parseDuration("90 s").get() == 90_000)
        #expect(try AlertUnit.parseDuration("1.5h").get() == 5_400_000)
        #expect(AlertUnit.duration(600_000) == "10 min")
        #expect(AlertUnit.dBm.text(-80) == "-80 dBm")
    }
}
