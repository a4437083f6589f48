import FPAnalysis
import FPBLE
import FPConfig
import FPCore
import FPLinuxRadios
import FPNet
import FPProviders
import FPSession
import FPStore
import Foundation

/// Puts the concrete pieces together for one command: paths, settings,
/// config, store, providers. The only place that knows every module.
struct Workspace {
    var storeOptions: StoreOptions?
    var configOptions: ConfigOptions?
    var environment: [String: String] = ProcessInfo.processInfo.environment
    var paths: FPPaths { FPPaths(environment: environment) }

    init(storeOptions: StoreOptions? = nil, configOptions: ConfigOptions? = nil) {
        self.storeOptions = storeOptions
        self.configOptions = configOptions
    }

    static func newDocumentID() -> String { UUID().uuidString.lowercased() }

    /// `--db`, else `FPRINT_DB`, else the XDG data directory.
    var databasePath: String { storeOptions?.db ?? paths.databasePath }

    enum StoreUse { case read, write }

    /// Whether the database path was chosen (`--db`, `FPRINT_DB`) rather than
    /// the XDG default: only the default location's folders are created.
    var databasePathIsExplicit: Bool { storeOptions?.db != nil || environment["FPRINT_DB"].map { !$0.isEmpty } == true }

    /// Opens the store read-only for commands that only read (a read-only
    /// file or mount works, a mistyped path creates nothing: exit 66), or
    /// read-write for those that store.
    /// Where the database path came from, for messages about it.
    var databasePathOrigin: String {
        storeOptions?.db != nil ? "--db" : environment["FPRINT_DB"].map { !$0.isEmpty } == true ? "FPRINT_DB" : "the default"
    }

    func openStore(_ use: StoreUse) throws -> SQLiteDocumentStore {
        let path = databasePath
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure("\(path) (\(databasePathOrigin)) is a directory, not a database file: name a file, "
                                 + "e.g. \((path as NSString).appendingPathComponent("fprint.sqlite"))", .usage)
        }
        let store: SQLiteDocumentStore
        do {
            switch use {
            case .read:
                guard FileManager.default.fileExists(atPath: path) else {
                    throw CommandFailure("no database at \(path)" + (databasePathIsExplicit ? "" : " yet: `fprint measure` or `fprint walk` creates it"), .notFound)
                }
                store = try SQLiteDocumentStore(path: path, access: .readOnly)
            case .write:
                store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: !databasePathIsExplicit))
            }
        } catch let e as StoreError {
            switch e {
            case .notFound: throw CommandFailure("no database at \(path)", .notFound)
            case .invalid(let why): throw CommandFailure("\(path) (\(databasePathOrigin)): \(why)", .ioError)
            default: throw CommandFailure("\(path): \(e.description)", .ioError)
            }
        }
        if case .rollbackJournal(let reason)? = store.openNote {
            Terminal.err("warning: \(path): \(reason); using a rollback journal instead (one fprint at a time; readers wait while a walk is stored)")
        }
        return store
    }

    func settingsStore() -> SettingsStore { SettingsStore(path: paths.settingsPath) }

    func settings() throws -> Settings {
        do { return try settingsStore().load() } catch { throw CommandFailure("\(error)", .usage) }
    }

    /// `--config`, else `FPRINT_CONFIG`, else the config-url setting, else
    /// your own (`fprint map`'s), else the shipped config.
    func configLocation() throws -> String {
        guard let location = try configLocationIfAny() else {
            throw CommandFailure("no app config found: looked for \(ConfigLocator.relativePath) here, beside the fprint executable and in \(ConfigLocator.systemPaths.joined(separator: ", ")); pass --config PATH-OR-URL", .dataError)
        }
        return location
    }

    /// `configLocation`, nil when none is named and no shipped config is found.
    private func configLocationIfAny() throws -> String? { try configChoice()?.location }

    /// What chose the app config in force, for messages: "--config", "FPRINT_CONFIG", "the config-url setting",
    /// "your own app config" or "the shipped app config".
    func configOrigin() throws -> String { try configChoice()?.origin ?? "the shipped app config" }

    /// The app config in force and what chose it, in the order `configLocation` gives.
    private func configChoice() throws -> (location: String, origin: String)? {
        if let c = configOptions?.config, !c.isEmpty { return (c, "--config") }
        if let c = environment["FPRINT_CONFIG"], !c.isEmpty { return (c, "FPRINT_CONFIG") }
        if let c = try settings().configURL, !c.isEmpty { return (c, "the config-url setting") }
        let own = UserConfigFolder(paths: paths)
        if own.exists { return (own.appConfigPath, "your own app config") }
        return ConfigLocator.defaultAppConfigPath(executablePath: ConfigLocator.currentExecutablePath,
                                                  currentDirectory: FileManager.default.currentDirectoryPath)
            .map { ($0, "the shipped app config") }
    }

    /// The app config for commands that only want map scales (eval, locate,
    /// export, plot): nil, not an error, when none was named and none is
    /// found (a binary used without the repository or an install around it).
    func configIfAny() throws -> LoadedConfig? {
        try configLocationIfAny().map { try loadConfig(from: $0) }
    }

    func loadConfig() throws -> LoadedConfig {
        try loadConfig(from: configLocation())
    }

    private func loadConfig(from location: String) throws -> LoadedConfig {
        let loader = configLoader()
        let loaded: LoadedConfig
        do { loaded = try loader.load(from: location) } catch let e as ConfigError {
            throw CommandFailure(e.description, .dataError)
        }
        if let warning = loaded.warning { Terminal.err("warning: \(warning)") }
        return loaded
    }

    /// Remote config files get the credential stored for their gateway's origin.
    func configLoader() -> ConfigLoader { Self.configLoader(paths: paths) }

    static func configLoader(paths: FPPaths) -> ConfigLoader {
        let transport = CurlHTTPTransport()
        let authorizer = ConfigAuthorizer(paths: paths, transport: transport)
        return ConfigLoader(cacheDirectory: paths.configCacheDirectory, transport: transport,
                            authorize: { authorizer.headers(for: $0) })
    }

    func map(_ id: String, in loaded: LoadedConfig) throws -> MapInfo {
        guard let m = loaded.appConfig.map(id: id) else {
            let known = loaded.appConfig.maps.map(\.id).joined(separator: ", ")
            throw CommandFailure("unknown map '\(id)' (the config offers: \(known))", .notFound)
        }
        return m
    }

    func scenario(_ id: String, in loaded: LoadedConfig) throws -> Scenario {
        let scenarios = try Self.scenarios(of: loaded)
        guard let s = scenarios.scenario(id: id) else {
            let known = scenarios.scenarios.map(\.scenarioID).joined(separator: ", ")
            throw CommandFailure("unknown scenario '\(id)' (the config offers: \(known))", .notFound)
        }
        return s
    }

    /// The config's scenarios, or its scenarios file's error as the command's.
    static func scenarios(of loaded: LoadedConfig) throws -> ScenarioSet {
        do { return try loaded.scenarios } catch { throw CommandFailure(error.description, .dataError) }
    }

    func scale(of map: MapInfo) -> MapScale { map.scale }

    /// `environments/<MAP>.json` beside a local app config, else in the config directory.
    func environmentPath(map: String, loaded: LoadedConfig) -> String? {
        let candidates = [loaded.baseDirectory, paths.configDirectory].compactMap { $0 }
            .map { "\($0)/environments/\(map).json" }
        return candidates.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The simulated radio environment of a map: a local file beside a local
    /// config, else the one served beside a remote config (fetched with its
    /// credentials, cached), else one in the config directory.
    func radioEnvironment(map: String, loaded: LoadedConfig) throws -> RadioEnvironment {
        var remoteProblem = ""
        if loaded.baseDirectory == nil, loaded.location != nil {
            do {
                if let env = try configLoader().loadMapFile(.environment, map: map, of: loaded, decode: {
                    try RadioEnvironment(data: $0, source: $1)
                }) {
                    return env
                }
                remoteProblem = "; the config's server has none"
            } catch {
                if let path = environmentPath(map: map, loaded: loaded) { return try Self.environment(at: path) }
                throw CommandFailure("\(error)", .dataError)
            }
        }
        guard let path = environmentPath(map: map, loaded: loaded) else {
            if let fromBeacons = try beaconEnvironment(map: map, loaded: loaded) { return fromBeacons }
            throw CommandFailure("no simulated radio environment for map \(map): looked for environments/\(map).json beside the app config and in \(paths.configDirectory), and the map has no beacon registry to simulate (`fprint beacons import`)\(remoteProblem)", .dataError)
        }
        return try Self.environment(at: path)
    }

    /// A map of your own has no environment file, but its beacon list says
    /// where its beacons are and how loud: simulating those (BLE alone) lets
    /// `--simulate` survey it before any radio is at hand.
    func beaconEnvironment(map: String, loaded: LoadedConfig) throws -> RadioEnvironment? {
        guard let info = loaded.appConfig.map(id: map),
              let registry = try BeaconRegistryFile.load(map: map, explicit: nil, config: loaded, paths: paths),
              !registry.entries.isEmpty else { return nil }
        let beacons = registry.entries.map { e in
            let power = Int((e.measuredPower ?? -66).rounded())
            guard e.mac == nil else {
                return RadioEnvironment.BLETransmitter(address: e.mac!, position: MapPoint(x: e.x, y: e.y), measuredPower: power)
            }
            // A beacon known only by what it advertises sends that, from a static random address made from it.
            return RadioEnvironment.BLETransmitter(address: Self.staticRandomAddress(e.id), addressType: "random",
                                                   position: MapPoint(x: e.x, y: e.y), measuredPower: power,
                                                   beacon: Self.advertised(e, measuredPower: power))
        }
        return RadioEnvironment(map: map, name: "\(map)'s beacon registry", source: "beacons/\(map).json", scale: info.scale, ble: beacons)
    }

    /// The frame a registry entry advertises in a simulation: its iBeacon id, else its Eddystone-UID.
    static func advertised(_ e: BeaconRegistry.Entry, measuredPower: Int) -> Beacon? {
        switch e.iBeacon ?? e.eddystone {
        case let .iBeacon(uuid, major, minor)?:
            return Beacon(type: "ibeacon", uuid: uuid, major: major, minor: minor, measuredPower: measuredPower)
        case let .eddystoneUID(namespace, instance)?:
            return Beacon(type: "eddystone-uid", measuredPower: measuredPower - 41, namespace: namespace, instance: instance)
        default:
            return nil
        }
    }

    /// A static random address (top two bits set) from FNV-1a of `text`: the same text, the same address.
    static func staticRandomAddress(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        let bytes = (0..<6).map { UInt8(truncatingIfNeeded: hash >> (8 * UInt64($0))) }
        return ([bytes[0] | 0xC0] + bytes[1...]).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    static func environment(at path: String) throws -> RadioEnvironment {
        do { return try RadioEnvironment.load(path: path) } catch { throw CommandFailure("\(error)", .dataError) }
    }

    /// One run's realistic building on a map: the run's device and beacons, and walls where the map has an outline.
    func realism(map: String, loaded: LoadedConfig, seed: UInt64) -> Realism {
        var realism = Realism(runSeed: seed)
        if let outline = loaded.appConfig.map(id: map)?.outline { realism.walls = Realism.Wall.edges(of: outline) }
        return realism
    }

    /// Providers for the chosen radios: simulated ones with --simulate, else the real ones.
    /// `spanMs`: how long the capture will run; in virtual time (--fast) it ends at the real now, so a fast
    /// document is never stamped in the future; nil = the length of the btsnoop replay.
    /// `realistic`: a simulation gets `Realism` unless --ideal (walk's default; measure's stays ideal).
    func captureSetup(map: String, loaded: LoadedConfig, capture: CaptureOptions, radios: Set<Radio>, spanMs: Int?,
                      realistic: Bool = false, streamReplay: Bool = false) throws
        -> CaptureSetup
    {
        let device = LinuxDeviceProvider(installIdPath: paths.installIDPath)
        let generator = "fprint \(Fprint.version)"
        // BLE first: an explicit --ble-source that cannot work fails before anything runs.
        var ble: (any RadioProvider)?
        if radios.contains(.ble), let source = capture.bleSource, source != .sim {
            ble = try BLEFailure.provider(source, explicit: true, exclusive: capture.exclusive, passive: capture.passive,
                                          keepRaw: capture.keepRaw, stream: streamReplay)
        }
        guard let spanMs = spanMs ?? (ble as? any BtsnoopReplaying)?.spanMs else {
            throw CommandFailure("--duration all replays a btsnoop capture: BLE must be on (drop --no-ble)", .usage)
        }
        let wantsSimulation = capture.simulate || (radios.contains(.ble) && capture.bleSource == .sim)
        var simulated: [any RadioProvider] = []
        let clock: any MeasurementClock =
            capture.fast ? VirtualClock(startDate: Date(timeIntervalSinceNow: -Double(spanMs) / 1000)) : MonotonicClock()
        if wantsSimulation {
            var env = try radioEnvironment(map: map, loaded: loaded)
            // A fresh seed per run unless one is given: two measurements at one point should differ as real ones do.
            // Below 2^53, so every JSON reader (JavaScript's too) reads it back exactly.
            let seed = capture.seed ?? UInt64.random(in: 1...(1 << 53))
            if capture.seed == nil { Terminal.err("simulated radios: seed \(seed) (--seed \(seed) repeats this run)") }
            let simRadios = capture.simulate ? radios : [.ble]
            if realistic && !capture.ideal { env.propagation.realism = realism(map: map, loaded: loaded, seed: seed) }
            simulated = SimulatedRadios.providers(environment: env, seed: seed, radios: simRadios)
        }
        var providers: [any RadioProvider] = []
        for radio in radios.sorted(by: { $0.rawValue < $1.rawValue }) {
            if radio == .ble, let ble {
                providers.append(ble)
            } else if let sim = simulated.first(where: { $0.radio == radio }) {
                providers.append(sim)
            } else if capture.fast {
                // A virtual clock (a fast replay) cannot drive real radios.
                providers.append(UnavailableRadio(radio: radio, reason: "not recorded while replaying on a virtual clock (--fast)"))
            } else if radio == .ble {
                providers.append(try BLEFailure.provider(.hci(0), explicit: false, exclusive: false, passive: capture.passive))
            } else {
                providers.append(RealRadios.provider(for: radio, options: capture))
            }
        }
        let reasons = providers.compactMap { p -> String? in
            if let u = p as? UnavailableRadio { return "\(u.radio.label): \(u.reason)" }
            if let check = p as? any PreflightCheck, let reason = check.preflight() { return "\(p.radio.label): \(reason)" }
            return nil
        }
        if reasons.count == providers.count {
            throw CommandFailure("no radio can be recorded here (\(reasons.joined(separator: "; "))); on a machine without radio hardware use --simulate", .unavailable)
        }
        // Motion sensors are real hardware: read them only when the radios are real too.
        let sensors = capture.simulate || capture.fast ? nil : RealRadios.sensors(environment: environment)
        var setup = CaptureSetup(providers: providers, device: device, clock: clock, radios: radios, generator: generator,
                                 sensors: sensors)
        if capture.fast, !capture.simulate {
            setup.sensorsNotRead = "motion sensors are not read in virtual time (--fast)"
        }
        if capture.keepRaw { setup.rawHCI = RawHCILog() }
        return setup
    }

    /// A stored document as one line of JSON with `_id` and `_rev`.
    static func documentJSON(_ stored: StoredDocument) -> String {
        var body = stored.body
        body["_id"] = .string(stored.id)
        body["_rev"] = .string(stored.rev.description)
        if stored.deleted { body["_deleted"] = true }
        return CanonicalJSON.string(body)
    }

    /// " (unavailable: Wi-Fi: reason; …)" for the closing message, or "".
    static func unavailableNote(_ doc: MeasurementDocument) -> String {
        let notes = Radio.allCases.compactMap { r -> String? in
            guard let s = doc.providers[r.rawValue], s.status == .unavailable else { return nil }
            // A simulated floor without a geo anchor has no GNSS to simulate: nothing to act on.
            if s.simulated, s.reason?.hasSuffix("has no geo anchor") == true { return nil }
            return "\(r.label): \(s.reason ?? "unavailable")"
        }
        return notes.isEmpty ? "" : " (unavailable: \(notes.joined(separator: "; ")))"
    }
}
