import ArgumentParser
import FPAnalysis
import FPCore
import Foundation

struct Eval: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "How well the stored fingerprints localise: leave-one-out NN, KNN and WKNN.",
        discussion: """
            Each measurement in turn is the unknown and all the others the radiomap, exactly as radio-localization-eval computes it: per transmitter the median RSSI of its samples (optionally only time ≤ --max-time-ms); Euclidean signal-space distance over the union of transmitters with a missing one counting --zero-signal; no transmitter in common = infinitely far; neighbours nearest first with ties in file order; WKNN weights 1/d (d = 0 → 0.0001); error = map distance × the map's metres per unit.

            File order is the order the documents reached this database: an imported file's own row order, as the evaluator reads that file (`export couch-view` writes it back in the same order). A measurement with no transmitter in common with any other gets no estimate: it is counted as unlocalised, not as an error (the Java evaluator stops there).

            --min-rssi leaves out BLE readings weaker than it before the medians are taken (Wi-Fi is kept); --ble-key identity keys a BLE transmitter by the iBeacon or Eddystone-UID id its address advertised in the document instead of by the address, so a beacon whose address rotates is one transmitter.

            Errors are in metres: count, mean, median (even count: mean of the two middle), p75 and p95 (nearest rank), max, and the floor hit rate (estimated floor = the nearest neighbour's map).

            With --train and --test: a training set and a test set instead (imported datasets: `fprint import`), positioned as the UJI long-term paper does. A selection is key=value terms joined by commas, all of which must hold, alternatives a|b: map, session, dataset, floor, since, until (createdAt; until exclusive), or any tag (month, campaign, set, point, a table's own columns). Not heard counts --zero-signal (−105) on both sides and every transmitter column of the imported table counts. --method: knnK (mean of the k nearest by Euclidean distance, ties in training-file order; at distance 0 the first such neighbour), wknnK (weights 1/d), gkSkK (Gaussian kernel, σ S dB: per column log(N(a − q; 0, σ²)), log 1e-6 where a side did not hear it; the mean of the k likeliest). Ranges sweep parameters in one pass, sharing the neighbour search and the kernels' walk, each method's figures exactly as alone: knn1..15, wknn1..15, gk2..8k12 (σ 2…8, k 12), gk4k1..12. Floor: the most frequent among the k (the lowest on a tie). Figures per group (--group-by month: training and test of the same month): mean, median, p75 as Matlab's prctile computes it (the papers' figure), p75 and p95 by nearest rank (fprint's), max, floor success rate. --predictions FILE writes every test fingerprint's estimate as CSV.

            Examples:
              fprint eval
              fprint eval --map J3NP --set combined --estimator wknn --k 1..3
              fprint eval --max-time-ms 5000 --zero-signal=-100 --json
              fprint eval --ble-weight 0.8 --csv > results.csv
              fprint eval --set ble --min-rssi=-90 --ble-key identity
              fprint eval --train campaign=trn01 --test set=test --group-by month --method knn9,knn1,gk4k12
              fprint eval --train 'month=1,campaign=trn01|trn02' --test 'month=1,set=test' --method wknn3 --predictions m01.csv
              fprint eval --train campaign=trn01 --test set=test --group-by month --method knn1..15,wknn1..15,gk2..8k12 --csv
            """)

    @OptionGroup var filters: FilterOptions
    @Option(help: "Radio sets, comma-separated: wifi, ble, combined (default: all three; with --train/--test one set, combined).")
    var set: String?
    @Option(help: "Estimators, comma-separated: nn, knn, wknn (NN runs once, k = 1; default: all three).") var estimator: String?
    @Option(help: "k for KNN/WKNN: 2, 1..3 or 1,2,5 (default 1..3).") var k: String?
    @OptionGroup var holdout: HoldoutOptions
    @Option(name: .customLong("zero-signal"), parsing: .unconditional,
            help: "RSSI a transmitter missing on one side counts as (dBm).")
    var zeroSignal: Double = -105
    @Option(name: .customLong("max-time-ms"), help: "Only samples with time ≤ this (ms from the measurement start).")
    var maxTimeMs: Int?
    @Option(name: .customLong("ble-weight"), help: "Multiply BLE medians by this in the combined set (1 = off).")
    var bleWeight: Double = 1
    @OptionGroup var bleReadings: BLEReadingOptions
    @Option(help: "List this many worst measurements per result (table: id prefixes; JSON: full).") var worst = 3
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print CSV (one row per set, estimator and k).") var csv = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    static let defaultSets = "wifi,ble,combined", defaultEstimators = "nn,knn,wknn", defaultK = "1..3"

    func validate() throws {
        if holdout.active {
            if estimator != nil || k != nil {
                throw ValidationError("--estimator and --k are leave-one-out's; with --train/--test use --method (e.g. knn9,gk4k12)")
            }
            _ = try holdout.radioSet(set)
        } else {
            _ = try Self.cases(sets: set ?? Self.defaultSets, estimators: estimator ?? Self.defaultEstimators,
                               k: k ?? Self.defaultK)
        }
        if json && csv { throw ValidationError("--json and --csv exclude each other") }
        if !zeroSignal.isFinite { throw ValidationError("--zero-signal must be a number of dBm") }
        if !(bleWeight.isFinite && bleWeight > 0) { throw ValidationError("--ble-weight must be a positive number") }
        if worst < 0 { throw ValidationError("--worst must not be negative") }
    }

    /// Parses "1..3", "2" or "1,2,5".
    static func kValues(_ text: String) throws -> [Int] {
        let bad = ValidationError("--k: cannot read '\(text)': use 2, 1..3 or 1,2,5 (each 1–50)")
        var out: [Int] = []
        for part in text.split(separator: ",") {
            let bounds = part.components(separatedBy: "..")
            if bounds.count == 2, let a = Int(bounds[0]), let b = Int(bounds[1]), a <= b {
                out += Array(a...b)
            } else if bounds.count == 1, let a = Int(bounds[0]) {
                out.append(a)
            } else {
                throw bad
            }
        }
        guard !out.isEmpty, out.allSatisfy({ (1...50).contains($0) }) else { throw bad }
        var seen = Set<Int>()
        return out.filter { seen.insert($0).inserted }
    }

    static func list<T: RawRepresentable & CaseIterable>(_ text: String, _ option: String, as: T.Type) throws -> [T]
    where T.RawValue == String {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var out: [T] = []
        for n in names {
            guard let v = T(rawValue: n) else {
                let known = T.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("\(option): unknown value '\(n)' (choose from \(known))")
            }
            if !out.contains(where: { $0.rawValue == v.rawValue }) { out.append(v) }
        }
        if out.isEmpty { throw ValidationError("\(option) must name at least one value") }
        return out
    }

    static func cases(sets: String, estimators: String, k: String) throws -> [CrossValidation.Case] {
        let sets = try list(sets, "--set", as: RadioSet.self)
        let estimators = try list(estimators, "--estimator", as: Estimator.self)
        let ks = try kValues(k)
        var out: [CrossValidation.Case] = []
        for s in sets {
            for e in estimators {
                for kk in (e == .nn ? [1] : ks) { out.append(.init(set: s, estimator: e, k: kk)) }
            }
        }
        return out
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        // Reading 60,000 imported documents takes seconds: on a terminal the wait says what it is.
        if Terminal.stderrIsTTY { Terminal.status("eval: reading the stored fingerprints…") }
        // Unfiltered (the datasets' protocols select by tags afterwards): from the packed radiomap when current.
        let unfiltered = filters.map == nil && filters.since == nil && filters.mode == nil && filters.session == nil
        let fps = bleReadings.apply(unfiltered ? try RadiomapCache.fingerprints(store, database: ws.databasePath)
                                              : try AnalysisInput.fingerprints(store, filters))
        Terminal.endStatusIfOpen()
        let options = SignalOptions(zeroSignal: zeroSignal, maxTimeMs: maxTimeMs, bleWeight: bleWeight)
        if holdout.active {
            let report = try EvalHoldout(options: holdout, set: try holdout.radioSet(set), signal: options).run(fps, ws)
            try report.write(json: json, csv: csv, digits: holdout.digits, predictions: holdout.predictions)
            return
        }
        guard fps.count >= 2 else {
            throw CommandFailure("eval needs at least 2 measurements, \(fps.count) match the filters", .notFound)
        }
        let scales = try AnalysisInput.scales(ws, of: fps)
        let cv = CrossValidation(fingerprints: fps, options: options) { scales[$0] ?? MapScale.jBuilding.metersPerUnit }
        let started = DispatchTime.now().uptimeNanoseconds
        let results = cv.run(try Self.cases(sets: set ?? Self.defaultSets, estimators: estimator ?? Self.defaultEstimators,
                                            k: k ?? Self.defaultK))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let report = EvalReport(fingerprints: fps, options: options, results: results, worst: worst)
        if json {
            Terminal.out(CanonicalJSON.string(report.json))
        } else if csv {
            for line in report.csvLines { Terminal.out(line) }
        } else {
            for line in report.tableLines { Terminal.out(line) }
            Terminal.err(String(format: "%d measurements, leave-one-out in %.2f s", fps.count, seconds))
        }
    }
}
