import ArgumentParser
import FPAnalysis
import FPCore
import FPStore
import Foundation

/// `fprint eval`'s train/test options.
struct HoldoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The training fingerprints: key=value terms, comma-separated (e.g. campaign=trn01).", valueName: "selection"))
    var train: String?
    @Option(help: ArgumentHelp("The test fingerprints (e.g. set=test).", valueName: "selection")) var test: String?
    @Option(help: "With --train/--test: methods, comma-separated: knnK, wknnK, gkSkK (σ S dB; default knn9,knn1,gk4k12); ranges sweep: knn1..15, gk2..8k12.")
    var method: String?
    static let defaultMethods = "knn9,knn1,gk4k12"
    @Option(name: .customLong("group-by"), help: ArgumentHelp("With --train/--test: one evaluation per value of this key (a tag such as month, or map, session, dataset, floor), training and test of the same value.", valueName: "key"))
    var groupBy: String?
    @Option(help: ArgumentHelp("With --train/--test: write every test fingerprint's estimate to this CSV file.", valueName: "file"),
            completion: .file()) var predictions: String?
    @Option(help: "Decimals of the table's metres.") var digits = 2

    var active: Bool { train != nil || test != nil }

    func validate() throws {
        if active && (train == nil || test == nil) { throw ValidationError("--train and --test go together") }
        if !active, let given = [("--group-by", groupBy != nil), ("--predictions", predictions != nil),
                                   ("--method", method != nil)].first(where: \.1)?.0 {
            throw ValidationError("\(given) needs --train and --test")
        }
        if active {
            _ = try methods()
            _ = try Self.selection(train!, "--train")
            _ = try Self.selection(test!, "--test")
        }
        if !(0...9).contains(digits) { throw ValidationError("--digits must be 0–9") }
        if let groupBy, groupBy.isEmpty || groupBy.contains(where: { ",=|".contains($0) }) {
            throw ValidationError("--group-by: '\(groupBy)' is not a key")
        }
    }

    /// The --method list with its ranges expanded (`knn1..15`), in order, each method once.
    func methods() throws -> [HoldoutMethod] {
        var out: [HoldoutMethod] = []
        var seen = Set<HoldoutMethod>()
        for name in (method ?? Self.defaultMethods).split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let expanded: [HoldoutMethod]
            do { expanded = try HoldoutMethod.expand(name) } catch { throw ValidationError("--method: \(error)") }
            for m in expanded where seen.insert(m).inserted { out.append(m) }
        }
        if out.isEmpty { throw ValidationError("--method must name at least one method") }
        return out
    }

    /// One radio set: as given, or combined.
    func radioSet(_ text: String?) throws -> RadioSet {
        guard let text else { return .combined }
        guard let set = RadioSet(rawValue: text.lowercased()) else {
            throw ValidationError("--set: with --train/--test one of wifi, ble, combined, not '\(text)'")
        }
        return set
    }

    /// `key=value[|value…],…`; since/until take dates as `list --since` does.
    static func selection(_ text: String, _ option: String) throws -> Selection {
        var selection = Selection()
        for term in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = term.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("\(option): '\(term)' is not key=value (in '\(text)')")
            }
            switch parts[0] {
            case "since", "until":
                guard let ms = List.parseSince(parts[1], now: Date()) else {
                    throw ValidationError("\(option): \(parts[0]) '\(parts[1])': use 2016-06-01, 2016-06-01T08:00:00Z or 30m/12h/7d")
                }
                if parts[0] == "since" { selection.sinceMs = ms } else { selection.untilMs = ms }
            default:
                selection.terms.append(.init(key: parts[0], values: parts[1].split(separator: "|").map(String.init)))
            }
        }
        return selection
    }
}

/// The train/test evaluation behind `fprint eval --train … --test …`.
struct EvalHoldout {
    var options: HoldoutOptions
    var set: RadioSet
    var signal: SignalOptions

    func run(_ fps: [Fingerprint], _ ws: Workspace) throws -> EvalHoldoutReport {
        let trainSelection = try HoldoutOptions.selection(options.train!, "--train")
        let testSelection = try HoldoutOptions.selection(options.test!, "--test")
        let methods = try options.methods()
        let split = HoldoutSplit(fps, train: trainSelection, test: testSelection, groupBy: options.groupBy)
        guard !split.train.isEmpty else { throw CommandFailure("no stored fingerprint matches --train \(options.train!)", .notFound) }
        guard !split.test.isEmpty else { throw CommandFailure("no stored fingerprint matches --test \(options.test!)", .notFound) }
        // Said before the long work, on a terminal or not: a selection taking two datasets shows now.
        Terminal.err(EvalSelection.line(train: split.trainSets, test: split.testSets, trainText: options.train!,
                                        testText: options.test!))
        // Imported datasets are in metres; fprint's own maps take their scale from the app config.
        let scales = try AnalysisInput.scales(ws, of: split.maps)
        let metersPerUnit: @Sendable (Fingerprint) -> Double = { fp in
            fp.labels.inMetres ? 1 : scales[fp.level] ?? MapScale.jBuilding.metersPerUnit
        }
        let testOf = split.testOf
        var trainOf: [String?: [Fingerprint]] = [:]
        let key = options.groupBy
        let keys: [String?]
        if let key {
            keys = Selection.ordered(Set(testOf.keys.compactMap { $0 }))
            guard !keys.isEmpty else { throw CommandFailure("no test fingerprint has a value for --group-by \(key)", .notFound) }
            // Values written alike count as one (month=1 is month=01): the training side takes the test side's spelling.
            for (fp, value) in zip(split.train, split.trainGroup) {
                guard let v = value else { continue }
                guard let same = testOf[v] != nil ? v : keys.first(where: { Selection.same($0!, v) }) else { continue }
                trainOf[same, default: []].append(fp)
            }
        } else {
            keys = [nil]
            trainOf[nil] = split.train
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let evaluated = keys.filter { value in
            guard trainOf[value]?.isEmpty == false else {
                Terminal.err("warning: \(key!) \(value!): no training fingerprint, left out")
                return false
            }
            return true
        }
        // The groups are independent: evaluated on every core, reported in order.
        let work = evaluated.map { (value: $0, train: trainOf[$0]!, test: testOf[$0] ?? []) }
        let progress = EvalProgress(total: work.map(\.test.count).reduce(0, +) * Holdout.passes(methods))
        let (set, signal) = (set, signal)
        let groups = concurrentMap(work) { g in
            let holdout = Holdout(train: g.train, test: g.test, set: set, options: signal, metersPerUnit: metersPerUnit)
            return EvalHoldoutReport.Group(value: g.value, train: g.train.count, test: g.test, space: holdout.space,
                                           results: holdout.run(methods, progress: progress.step))
        }
        progress.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return EvalHoldoutReport(options: options, set: set, signal: signal, groups: groups, seconds: seconds)
    }
}

/// Both sides of a train/test evaluation taken in one pass over the stored
/// fingerprints, with what is said and scaled about them: each pass over
/// 63,504 fingerprints spread over 100 MB costs ~10 ms of cache misses, and
/// six passes (two filters, the datasets of each side, the maps, the groups)
/// were a third of eval's start.
struct HoldoutSplit {
    private(set) var train: [Fingerprint] = [], test: [Fingerprint] = []
    /// Each training fingerprint's --group-by value (nil: none, or no --group-by).
    private(set) var trainGroup: [String?] = []
    /// The test fingerprints by their --group-by value.
    private(set) var testOf: [String?: [Fingerprint]] = [:]
    private(set) var trainSets = DatasetCounts(), testSets = DatasetCounts()
    private(set) var maps = MapUnits()

    init(_ fps: [Fingerprint], train trainSelection: Selection, test testSelection: Selection, groupBy: String?) {
        for fp in fps {
            let inTrain = trainSelection.matches(fp), inTest = testSelection.matches(fp)
            guard inTrain || inTest else { continue }
            maps.add(fp)
            let value = groupBy.flatMap { Selection.value(of: fp, $0) }
            if inTrain {
                train.append(fp)
                trainGroup.append(value)
                trainSets.add(fp)
            }
            if inTest {
                test.append(fp)
                testOf[value, default: []].append(fp)
                testSets.add(fp)
            }
        }
    }
}
