import FPCore
import FPHCI
import FPHCIFuzz
import FPLinuxRadios
import FPProbe
import Foundation

// What the radios and the network hand fprint: btsnoop captures and HCI
// events, gpsd's JSON lines, nl80211 netlink messages, mmcli's output, and
// the probe server's datagrams and request lines.
let radioTargets: [FuzzTarget] = [
    FuzzTarget(name: "btsnoop") { bytes in
        // A capture file, then each received event through the event parsers.
        guard let records = try? BtsnoopFile(bytes: bytes).records() else { return }
        var events = HCIFuzzer(corpus: [], seed: 1)
        for record in records where record.type == .event { events.run(Array(record.packet)) }
        if let broken = events.violations.first { fatalError(broken) }
    },
    FuzzTarget(name: "hci") { bytes in
        // One HCI event (code, length, parameters) through every parser, with the invariants of FPHCIFuzz.
        var events = HCIFuzzer(corpus: [], seed: 1)
        events.run(bytes)
        if let broken = events.violations.first { fatalError(broken) }
        _ = try? AdvertisingReports.parse(h4: bytes[...])
        if let ad = try? AdvertisingData(bytes: bytes[...]) { _ = BeaconFrame.decode(ad) }
    },
    FuzzTarget(name: "gpsd") { bytes in
        // gpsd's JSON lines, fed to the fix tracker as they come.
        var tracker = GPSDFixTracker()
        for (i, line) in text(bytes).split(separator: "\n").enumerated() {
            if let report = GPSDReport(line: line) { _ = tracker.feed(report, atMs: i * 1000) }
        }
    },
    FuzzTarget(name: "nl80211") { bytes in
        // A netlink receive buffer: messages, then each payload as a scan result and as an interface.
        for message in NL80211.messages(bytes[...]) ?? [] {
            _ = NL80211.bss(fromGenlPayload: message.payload)
            _ = NL80211.interface(fromGenlPayload: message.payload)
        }
        // A payload alone, as the recorded fixtures hold them.
        _ = NL80211.bss(fromGenlPayload: bytes[...])
        _ = NL80211.interface(fromGenlPayload: bytes[...])
        _ = NL80211.ssid(fromIEs: bytes[...])
    },
    FuzzTarget(name: "mmcli") { bytes in
        // `mmcli -J` answers: the modem list, a modem, the SIM, location and signal.
        let t = text(bytes)
        _ = try? MMCLIOutput.modemList(t)
        let modem = try? MMCLIOutput.modem(t)
        let sim = (try? MMCLIOutput.simOperatorCode(t)) ?? nil
        let location = (try? MMCLIOutput.location(t)) ?? nil
        let signal = try? MMCLIOutput.signal(t)
        if let modem { _ = MMCLIOutput.servingCell(modem: modem, simOperatorCode: sim, location: location, signal: signal, atMs: 0) }
    },
    FuzzTarget(name: "probe-wire") { bytes in
        // A UDP datagram, and the same bytes as a request line and as a stored run.
        _ = ProbeWire.Datagram(bytes[...])
        if let value = try? CanonicalJSON.parse(Data(bytes)) {
            _ = value["token"]?.stringValue
            _ = ProbeRun.all([(id: "probe:fuzz", body: value)])
        }
    },
]
