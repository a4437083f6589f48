import ArgumentParser
import CMalloc
import FPCore

/// The root of the command tree.
package struct Fprint: AsyncParsableCommand {
    package static let version = "0.1.0"

    package static let configuration = CommandConfiguration(
        commandName: "fprint",
        abstract: "Collect radio fingerprints (BLE, Wi-Fi, cellular, GNSS) for indoor positioning.",
        discussion: """
            Measure at a point of a floor plan or walk a scripted route; every measurement is one JSON document in a local SQLite store.

            Examples:
              fprint measure --map J1NP --x 363 --y 701 --simulate
              fprint walk --scenario scenarioJ1NP1 --simulate --fast
              fprint list --map J1NP
              fprint show 3f2a
              fprint sync

            Exit codes: 0 ok, 1 failure, 3 an alert is active (alerts, beacons --fail-on-alert), 64 invalid arguments, 65 invalid input data, 66 not found, 69 no radio available, 74 database/file error, 75 gateway unreachable, 76 replication protocol error, 77 token or credentials rejected, 80 no Bluetooth in the kernel, 81 no permission for raw HCI, 82 adapter absent/down/busy, 83 controller without LE, 84 HCI command failed, 130 interrupted.
            """,
        version: version,
        subcommands: [
            Measure.self, WalkCommand.self, List.self, Show.self, Delete.self, Import.self, Migrate.self,
            Maps.self, MapCommand.self, Scenarios.self, ScenarioCommand.self, ConfigCommand.self, AdaptersCommand.self, Scan.self, AdvertiseCommand.self, RegionsCommand.self, Doctor.self,
            Eval.self, Locate.self, Track.self, ExportCommand.self, CoverageCommand.self, BeaconsCommand.self, AlertsCommand.self, Plot.self,
            Sync.self, Login.self, Status.self, GatewayCommand.self, DashboardCommand.self, ProbeCommand.self, Check.self, Repair.self, Maintenance.self,
        ])

    package init() {}
}

extension Fprint {
    /// Runs `fprint sync …` with `sync` parsed as its own root, and answers
    /// true; false for any other command or any arguments that do not parse
    /// so (help, a mistake, a completion script request), which the caller
    /// then runs through `main` with the whole tree's messages. Parsing
    /// through the root builds every subcommand's arguments by reflection
    /// to look for a completion script request: ~2.7 ms of a no-op sync's
    /// CPU more than parsing `sync` alone.
    package static func runSyncDirectly(_ arguments: [String]) async -> Bool {
        guard let command = directSync(arguments) else { return false }
        do {
            try await command.run()
        } catch {
            exit(withError: error)
        }
        return true
    }

    /// `arguments` (without the program name) as a parsed `sync`, when they
    /// name it and parse with it as the root; nil otherwise. The usual
    /// spellings are read without ArgumentParser (`Sync.quickParse`).
    static func directSync(_ arguments: [String]) -> Sync? {
        guard namesSync(arguments) else { return nil }
        let rest = Array(arguments.dropFirst())
        return Sync.quickParse(rest) ?? (try? Sync.parseAsRoot(rest)) as? Sync
    }

    /// At most two malloc arenas. A push signs and compresses on every core,
    /// and glibc gives each thread an arena of its own that keeps the thread's
    /// freed batches resident: push peak ~158 → ~68 MB on 10,000 documents
    /// of 20 KB (docs/performance.md). Takes effect for arenas not yet made,
    /// so `FprintMain` calls it first; the command again, for callers that
    /// skip `main` (tests).
    package static func limitMallocArenas() {
        _ = mallopt(M_ARENA_MAX, 2)
    }

    /// Whether `arguments` (without the program name) run `fprint sync`:
    /// decided here for both the early start of libcurl's loading
    /// (`FprintMain`) and the direct parse.
    package static func namesSync(_ arguments: some Collection<String>) -> Bool { arguments.first == "sync" }
}
