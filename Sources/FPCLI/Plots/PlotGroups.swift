import ArgumentParser
import FPAnalysis
import FPCore
import FPDatasets
import Foundation

extension Plot {
    struct GroupsPlot: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "groups",
            abstract: "A train/test evaluation across groups (months): the 75th percentile error and the floor success rate per method.",
            discussion: """
                Reads what `fprint eval --train … --test … --group-by KEY --json` prints (a file, or - for standard input) and draws the UJI long-term paper's two figures: the 75th percentile of the 2-D error (as Matlab's prctile computes it) and the floor success rate, per group, one line per method.

                Examples:
                  fprint eval --train campaign=trn01 --test set=test --group-by month --json > months.json
                  fprint plot groups months.json -o months.svg
                  fprint plot groups months.json --sparkline
                """,
            aliases: ["months"])
        @Argument(help: "JSON of `fprint eval --train … --test … --json` (- for standard input).", completion: .file())
        var input: String
        @OptionGroup var out: Output

        func perform() async throws {
            let data = input == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: input)
            guard let data else { throw CommandFailure("\(input): cannot read the file", .ioError) }
            let parsed = try Self.read(data, name: input)
            if out.sparkline {
                let width = parsed.series.map(\.label.count).max() ?? 0
                for s in parsed.series {
                    let values = s.p75.compactMap { $0 }
                    Terminal.out(s.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + SVGPlot.sparkline(values)
                        + String(format: "  p75 %.2f…%.2f m", values.min() ?? 0, values.max() ?? 0))
                }
                return
            }
            let key = parsed.groupBy ?? "group"
            try out.write(SVGPlot.groups(
                title: "75th percentile error and floor success per \(key) (\(parsed.testCount) test fingerprints)",
                groupLabel: key, groups: parsed.groups, series: parsed.series,
                note: "train: \(parsed.train) · test: \(parsed.test) · p75 as Matlab's prctile computes it"),
                credits: DatasetCredits.lines(for: parsed.datasets))
        }

        struct Parsed {
            var groupBy: String?
            var train: String
            var test: String
            var groups: [String]
            var series: [SVGPlot.GroupSeries]
            var testCount: Int
            /// The datasets the test fingerprints came from (eval's `datasets`; absent before it said them).
            var datasets: [String] = []
        }

        /// The groups and, per method in first-seen order, its figures per group.
        static func read(_ data: Data, name: String) throws -> Parsed {
            let root: JSONValue
            do { root = try CanonicalJSON.parse(data) } catch {
                throw CommandFailure("\(name): not JSON of `fprint eval --json` (\(error))", .dataError)
            }
            guard root["mode"]?.stringValue == "train-test", case .array(let groups)? = root["groups"] else {
                throw CommandFailure("\(name): not the JSON of a train/test `fprint eval` (no mode \"train-test\" with groups)", .dataError)
            }
            var labels: [String] = [], methods: [String] = []
            var p75: [String: [Int: Double]] = [:], floor: [String: [Int: Double]] = [:]
            var testCount = 0
            for (i, g) in groups.enumerated() {
                labels.append(g["group"]?.stringValue ?? "all")
                testCount += Int(g["test"]?.intValue ?? 0)
                for r in g["results"]?.arrayValue ?? [] {
                    guard let method = r["method"]?.stringValue else {
                        throw CommandFailure("\(name): $.groups[\(i)]: a result without its method", .dataError)
                    }
                    if !methods.contains(method) { methods.append(method) }
                    p75[method, default: [:]][i] = r["p75Prctile"]?.doubleValue
                    floor[method, default: [:]][i] = r["floorSuccessRate"]?.doubleValue
                }
            }
            guard !labels.isEmpty, !methods.isEmpty else { throw CommandFailure("\(name): no groups with results", .dataError) }
            let series = methods.map { m in
                SVGPlot.GroupSeries(label: m, p75: labels.indices.map { p75[m]?[$0] },
                                    floorSuccess: labels.indices.map { floor[m]?[$0] })
            }
            return Parsed(groupBy: root["groupBy"]?.stringValue, train: root["train"]?.stringValue ?? "",
                          test: root["test"]?.stringValue ?? "", groups: labels, series: series, testCount: testCount,
                          datasets: root["datasets"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }
}
