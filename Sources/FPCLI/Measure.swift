import ArgumentParser
import FPCore
import FPSession
import Foundation

struct Measure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a static measurement at a point of a map.",
        discussion: """
            Stands at (x, y) in map units for --duration seconds (default: the measurement-seconds setting, 20 s; allowed 5–120), records every enabled radio and stores one document. Ctrl-C stops without storing anything (exit 130).

            Examples:
              fprint measure --map J1NP --x 363 --y 701
              fprint measure --map J3NP --x 1441 --y 303 --simulate --duration 10 --no-cell
              fprint measure --map J1NP --x 363 --y 701 --simulate --fast --json
            """)

    @Option(help: "Map id (see `fprint maps`).") var map: String
    @Option(help: "X in map units.") var x: Double
    @Option(help: "Y in map units.") var y: Double
    @Option(help: "Seconds to measure (5–120; default: the measurement-seconds setting).") var duration: Int?
    @Flag(help: "Print the stored document as JSON.") var json = false
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if let duration, !StaticMeasurement.allowedSeconds.contains(duration) {
            throw ValidationError("--duration must be 5–120 seconds, got \(duration)")
        }
        guard x.isFinite, y.isFinite, x >= 0, y >= 0 else {
            throw ValidationError("--x and --y must be non-negative map units")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let settings = try ws.settings()
            let loaded = try ws.loadConfig()
            let mapInfo = try ws.map(map, in: loaded)
            let radios = try capture.radios(enabled: settings.radios)
            let seconds = duration ?? settings.measurementSeconds
            let store = try ws.openStore()  // fail before measuring, not after
            let setup = try ws.captureSetup(map: mapInfo.id, loaded: loaded, capture: capture, radios: radios)
            let plan = StaticMeasurement(level: mapInfo.id, point: MapPoint(x: x, y: y), durationMs: seconds * 1000)
            let printer = ProgressPrinter(prefix: "measure \(mapInfo.id) (\(Int(x)), \(Int(y)))", plainEveryMs: 1000)
            let doc = try await Interrupts.cancellable {
                try await plan.run(setup) { printer.update($0) }
            }
            printer.finish()
            let id = Workspace.newDocumentID()
            let stored = try store.insert([NewDocument(id: id, body: try JSONValueEncoder().encode(doc))])
            if json {
                for s in stored { Terminal.out(Workspace.documentJSON(s)) }
            } else {
                Terminal.out(id)
                Terminal.err("stored \(id): BLE \(doc.bleScans.count), Wi-Fi \(doc.wifiScans.count), cellular \(doc.cellScans.count), GNSS \(doc.geolocation.count)" + Workspace.unavailableNote(doc))
            }
        }
    }
}
