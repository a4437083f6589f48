import Foundation

// `fprint list`, `list --json --limit 100` and `status` over the bench's
// 100,000-document store, whole process, median of 7 runs each (a run takes
// tens of milliseconds, so one neighbour's burst moves a single run a lot).
// Goals (issue 33): status < 30 ms, list --json --limit 100 < 20 ms; the
// reference is `fprint --version` in the same run: the cost of starting
// the binary at all.

func storeCommandBench(fprint: String, db: String, documents: Int, env: [String: String]) throws {
    func timed(_ arguments: [String]) throws -> (median: Double, runs: [Double]) {
        var times: [Double] = []
        for _ in 0..<7 {
            let r = try runMeasured(fprint, arguments, environment: env, samplePeak: false)
            guard r.status == 0 else { throw BenchError("`fprint \(arguments.joined(separator: " "))` exited \(r.status): \(r.stderr)") }
            times.append(r.seconds)
        }
        return (median(times), times)
    }
    let version = try timed(["--version"])
    let reference = "`fprint --version` \(ms(version.median))"
    let table = try timed(["list", "--db", db])
    print(String(format: "list: `fprint list` over %d documents: median %.1f ms (whole process)", documents, table.median * 1000))
    let load = oneMinuteLoad()
    let json = try timed(["list", "--db", db, "--json", "--limit", "100"])
    Goals.shared.check("`fprint list --json --limit 100` at \(documents) documents", "median of 7 \(ms(json.median))",
                       met: json.median < 0.020, goal: "< 20 ms", reference: reference + ", `fprint list` \(ms(table.median))",
                       load: max(load, oneMinuteLoad()))
    let statusLoad = oneMinuteLoad()
    let status = try timed(["status", "--db", db])
    Goals.shared.check("`fprint status` at \(documents) documents", "median of 7 \(ms(status.median))",
                       met: status.median < 0.030, goal: "< 30 ms", reference: reference, load: max(statusLoad, oneMinuteLoad()))
}
