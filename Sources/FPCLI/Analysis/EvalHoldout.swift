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
        let train = fps.filter(trainSelection.matches), test = fps.filter(testSelection.matches)
        guard !train.isEmpty else { throw CommandFailure("no stored fingerprint matches --train \(options.train!)", .notFound) }
        guard !test.isEmpty else { throw CommandFailure("no stored fingerprint matches --test \(options.test!)", .notFound) }
        // Said before the long work, on a terminal or not: a selection taking two datasets shows now.
        Terminal.err(EvalSelection.line(train: train, test: test, trainText: options.train!, testText: options.test!))
        // Imported datasets are in metres; fprint's own maps take their scale from the app config.
        let scales = try AnalysisInput.scales(ws, of: train + test)
        let metersPerUnit: @Sendable (Fingerprint) -> Double = { fp in
            fp.labels.inMetres ? 1 : scales[fp.level] ?? MapScale.jBuilding.metersPerUnit
        }
        // Each fingerprint's group read once: the groups are made in one pass, not filtered 15 times
        // (copying 60,000 fingerprints per group was a third of the time).
        var trainOf: [String?: [Fingerprint]] = [:], testOf: [String?: [Fingerprint]] = [:]
        let key = options.groupBy
        func group(_ fp: Fingerprint) -> String? { key.flatMap { Selection.value(of: fp, $0) } }
        for fp in test { testOf[group(fp), default: []].append(fp) }
        let keys: [String?]
        if let key {
            keys = Selection.ordered(Set(testOf.keys.compactMap { $0 }))
            guard !keys.isEmpty else { throw CommandFailure("no test fingerprint has a value for --group-by \(key)", .notFound) }
            // Values written alike count as one (month=1 is month=01): the training side takes the test side's spelling.
            for fp in train {
                guard let v = group(fp) else { continue }
                guard let same = testOf[v] != nil ? v : keys.first(where: { Selection.same($0!, v) }) else { continue }
                trainOf[same, default: []].append(fp)
            }
        } else {
            keys = [nil]
            trainOf[nil] = train
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
