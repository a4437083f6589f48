import FPAnalysis
import FPConfig
import FPCore
import FPDatasets
import FPProviders
import Foundation

// Files a user hands fprint: dataset CSVs and UJI campaigns, app config,
// scenarios, radio environments, floor-plan images.
let fileTargets: [FuzzTarget] = [
    FuzzTarget(name: "csv") { bytes in
        // `fprint import --table`: the header's delimiter, then every cell through a mapping.
        let csv = CSVFile(name: "fuzz.csv", bytes: bytes, delimiter: CSVFile.delimiter(ofHeader: bytes))
        // The mappings of the seeds: our own columns, UJIIndoorLoc's, a BLE table's.
        let mappings = [
            TableMapping(x: "x", y: "y", floor: "floor", time: "time", transmitterPrefixes: ["WAP"], notHeard: 100),
            TableMapping(x: "LONGITUDE", y: "LATITUDE", floor: "FLOOR", time: "TIMESTAMP", transmitterPrefixes: ["WAP"], notHeard: 100),
            TableMapping(x: "x", y: "y", time: "ts", transmitterPrefixes: ["rssi_"], radio: .ble),
        ]
        for mapping in mappings { _ = try? TableReader.read(csv, mapping: mapping) }
    },
    FuzzTarget(name: "uji") { bytes in
        // One UJI long-term campaign: its rss, crd, tms and ids files.
        let p = pieces(bytes, 4)
        let campaign = UJILongTerm.Campaign(month: "01", name: "trn01", folder: "/fuzz", relativeFolder: "db/01")
        func file(_ i: Int, _ kind: String) -> CSVFile { CSVFile(name: "db/01/trn01\(kind).csv", bytes: p[i]) }
        _ = try? UJILongTerm.read(campaign, rss: file(0, "rss"), crd: file(1, "crd"), tms: file(2, "tms"), ids: file(3, "ids"),
                                  time: TableTime(timeZone: TimeZone(identifier: "UTC")!))
    },
    FuzzTarget(name: "app-config") { bytes in
        // The app config a server publishes, then scenarios read against it.
        let p = pieces(bytes, 2)
        let config = try? AppConfig.parse(Data(p[0]), source: "fuzz-config.json")
        _ = try? ScenarioSet.parse(Data(p[1]), source: "fuzz-scenarios.json", appConfig: config)
    },
    FuzzTarget(name: "environment") { bytes in
        _ = try? RadioEnvironment(data: Data(bytes), source: "fuzz-environment.json")
    },
    FuzzTarget(name: "image") { bytes in
        // A floor plan's PNG, JPEG or SVG header.
        _ = ImageHeader(bytes)
        _ = ImageHeader.jpegEnds(bytes)
    },
]
