import FPCore
import FPStore
import FPTestSupport
import Foundation
import SystemPackage

// Sync benchmark (`fprint-bench --sync --fprint PATH`): the real binaries over
// loopback. A store of N documents of about 19.7 KB (the size of a static
// measurement) is pushed to `fprint gateway`, then pulled into an empty
// store; docs/s each way, the peak RSS of client (wait4's rusage) and
// gateway (VmHWM from /proc), and a no-op incremental `fprint sync`
// alternated with curl making the same three requests (issue 63: ≤ 2×).
// Rounds of N/5 and N (2,000 and 10,000 by default), side by side.

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// A child process: wall time to its exit and CPU time from wait4 (exact),
/// peak RSS sampled from /proc (VmHWM of its own image: wait4's maxrss
/// would count the bench's memory, which the child shares until exec).
struct Measured {
    var seconds: Double
    /// User + system CPU seconds of the child.
    var cpuSeconds: Double
    var status: Int32
    var peakKB: Int
    var stdout: String
    var stderr: String
}

/// `samplePeak`: watch the child's peak RSS from a thread that wakes every
/// 2 ms. Off for the short timed runs: on two cores the sampler's wake-ups
/// take CPU from the very process being timed (~3 ms of a 20 ms sync).
func runMeasured(_ exe: String, _ arguments: [String], environment: [String: String],
                 samplePeak: Bool = true) throws -> Measured {
    var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
    guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw BenchError("pipe: \(Errno(rawValue: errno))") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
    let argv = ([exe] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawn(&pid, exe, &actions, nil, argv, envp)
    close(outPipe[1])
    close(errPipe[1])
    guard spawned == 0 else { throw BenchError("cannot run \(exe): \(Errno(rawValue: spawned))") }
    let outData = DataBox(), errData = DataBox()
    let readers = DispatchGroup()
    outData.drain(FileHandle(fileDescriptor: outPipe[0], closeOnDealloc: true), group: readers)
    errData.drain(FileHandle(fileDescriptor: errPipe[0], closeOnDealloc: true), group: readers)
    let peak = samplePeak ? PeakSampler(pid: pid) : nil
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    readers.wait()
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    // Exited normally: its exit code; killed: 128 + the signal, as shells say.
    let code = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    return Measured(seconds: seconds, cpuSeconds: cpu, status: code, peakKB: peak?.stop() ?? 0,
                    stdout: outData.text, stderr: errData.text)
}

/// Samples a child's VmHWM every 2 ms on a thread of its own until stopped.
final class PeakSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(pid: pid_t) {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let kb = peakRSSKB(pid)
                lock.withLock { peak = max(peak, kb) }
                usleep(2_000)
            }
            done.signal()
        }
    }

    /// Stops sampling; the highest VmHWM seen, in KB.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { peak }
    }
}

/// CPU seconds a running process has used so far (utime + stime of /proc/PID/stat).
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return 0 }
    // Fields after the command name: state is field 3, utime 14, stime 15.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func drain(_ handle: FileHandle, group: DispatchGroup? = nil) {
        group?.enter()
        Thread.detachNewThread { [self] in
            readToEnd(handle, name: "bench-drain") { chunk in lock.lock(); data.append(chunk); lock.unlock() }
            group?.leave()
        }
    }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}

/// The sync benches' document: 15 BLE transmitters × 5 reports and 20 Wi-Fi,
/// about 19.7 KB of canonical JSON (a static measurement's size); the `j`th,
/// in walks of 50 named `session`-N.
func syncBenchDocument(_ j: Int, session: String, rng: inout SeededRandom) -> MeasurementDocument {
    walkDocument(seq: j % 50 + 1, session: "\(session)-\(j / 50)", rng: &rng, bleTransmitters: 15, reportsEach: 5, wifi: 20)
}

func runSyncBench(fprint: String, dir: String, docs: Int) throws {
    var env = benchEnvironment(dir)
    let secret = dir + "/gw-secret"

    var rng = SeededRandom(seed: 4)
    let encoder = JSONValueEncoder()
    func fill(_ path: String, count: Int) throws -> Int {
        let store = try SQLiteDocumentStore(path: path)
        var bytes = 0
        var i = 0
        while i < count {
            var chunk: [NewDocument] = []
            for j in i..<min(i + 500, count) {
                let body = try encoder.encode(syncBenchDocument(j, session: "sync", rng: &rng))
                if j < 100 { bytes += CanonicalJSON.data(body).count }
                chunk.append(NewDocument(id: String(format: "sync-%08d", j), body: body))
            }
            try store.insert(chunk)
            i += chunk.count
        }
        return bytes / min(100, max(1, count))
    }

    var rows: [String] = []
    for count in [docs / 5, docs] where count > 0 {
        let round = dir + "/n\(count)"
        try FileManager.default.createDirectory(atPath: round, withIntermediateDirectories: true)
        let source = round + "/source.sqlite", target = round + "/target.sqlite", gatewayDB = round + "/gateway.sqlite"
        let perDoc = try fill(source, count: count)
        print(String(format: "sync: %d documents of %.1f KB canonical JSON", count, Double(perDoc) / 1024))

        let server = try BenchGateway(fprint: fprint, db: gatewayDB, secret: secret, environment: env)
        defer { server.stop() }
        let gateway = server.process, url = server.url
        env["FPRINT_TOKEN"] = server.token

        var gatewayCPU = processCPUSeconds(gateway.processIdentifier)
        let push = try runMeasured(fprint, ["sync", "--push-only", "--quiet", "--gateway", url, "--db", source], environment: env)
        guard push.status == 0 else { throw BenchError("push failed: \(push.stderr)") }
        var gatewayUsed = processCPUSeconds(gateway.processIdentifier) - gatewayCPU
        let afterPush = try checkpointIDs(gatewayDB)
        print(String(format: "sync: push %d docs in %.2f s: %.0f docs/s, client peak RSS %.1f MiB (target ≥ 1,500 docs/s); "
                     + "CPU client %.2f s, gateway %.2f s", count, push.seconds, Double(count) / push.seconds,
                     Double(push.peakKB) / 1024, push.cpuSeconds, gatewayUsed))
        gatewayCPU = processCPUSeconds(gateway.processIdentifier)
        let pull = try runMeasured(fprint, ["sync", "--pull-only", "--quiet", "--gateway", url, "--db", target], environment: env)
        guard pull.status == 0 else { throw BenchError("pull failed: \(pull.stderr)") }
        gatewayUsed = processCPUSeconds(gateway.processIdentifier) - gatewayCPU
        let afterPull = try checkpointIDs(gatewayDB)
        print(String(format: "sync: pull %d docs in %.2f s: %.0f docs/s, client peak RSS %.1f MiB (targets ≥ 1,500 docs/s, "
                     + "< 100 MiB); CPU client %.2f s, gateway %.2f s", count, pull.seconds, Double(count) / pull.seconds,
                     Double(pull.peakKB) / 1024, pull.cpuSeconds, gatewayUsed))
        Goals.shared.check("sync push and pull of \(count) documents, client peak RSS",
                           String(format: "push %.1f MiB (%.0f docs/s), pull %.1f MiB (%.0f docs/s)", Double(push.peakKB) / 1024,
                                  Double(count) / push.seconds, Double(pull.peakKB) / 1024, Double(count) / pull.seconds),
                           met: Double(push.peakKB) / 1024 < 80 && Double(pull.peakKB) / 1024 < 80, goal: "< 80 MiB both")
        let gatewayPeakKB = peakRSSKB(gateway.processIdentifier)
        guard try SQLiteDocumentStore(path: target).count() == count else { throw BenchError("pull lost documents") }
        // The first sync after the push still examines the pushed documents in
        // the pull's feed (already here): not a no-op, so not timed.
        let first = try runMeasured(fprint, ["sync", "--quiet", "--gateway", url, "--db", source], environment: env, samplePeak: false)
        guard first.status == 0 else { throw BenchError("sync after the push failed: \(first.stderr)") }
        // The reference: curl asking the same three things a no-op sync asks (both
        // checkpoints and the pull's feed from where it stands), in one process.
        // The source's push checkpoint and the pull checkpoint its first sync made (not the target's pull).
        let sourceCheckpoints = try checkpointIDs(gatewayDB).subtracting(afterPull.subtracting(afterPush))
        let curlArguments = try noopRequests(checkpoints: sourceCheckpoints, url: url, token: env["FPRINT_TOKEN"] ?? "")
        let (noop, curl, noopLoad) = try alternated(11, { _ in
            let r = try runMeasured(fprint, ["sync", "--quiet", "--gateway", url, "--db", source], environment: env,
                                    samplePeak: false)
            guard r.status == 0 else { throw BenchError("no-op sync failed: \(r.stderr)") }
            return r
        }, reference: { _ in
            let r = try runMeasured("/usr/bin/curl", curlArguments, environment: env, samplePeak: false)
            guard r.status == 0 else { throw BenchError("curl's three requests failed (exit \(r.status)): \(r.stderr)") }
            return r
        })
        Goals.shared.ratio("no-op `fprint sync` (push+pull, whole process) at \(count) documents vs curl's same 3 requests",
                           figure: median(noop.map(\.seconds)),
                           String(format: "median of 11 %.1f ms (CPU %.1f ms)", median(noop.map(\.seconds)) * 1000,
                                  median(noop.map(\.cpuSeconds)) * 1000),
                           reference: median(curl.map(\.seconds)),
                           String(format: "curl %.1f ms (CPU %.1f ms)", median(curl.map(\.seconds)) * 1000,
                                  median(curl.map(\.cpuSeconds)) * 1000),
                           goal: .slowerAtMost(2), load: noopLoad)
        rows.append(String(format: "%6d × %4.1f KB | push %5.0f docs/s | pull %5.0f docs/s | client peak %5.1f / %5.1f MiB | "
                           + "gateway peak %5.1f MiB | no-op sync %4.1f ms", count, Double(perDoc) / 1024,
                           Double(count) / push.seconds, Double(count) / pull.seconds, Double(push.peakKB) / 1024,
                           Double(pull.peakKB) / 1024, Double(gatewayPeakKB) / 1024, median(noop.map(\.seconds)) * 1000))
    }
    print("sync summary (client peak: push / pull; targets ≥ 1,500 docs/s each way, push and pull < 80 MiB, no-op ≤ 2× curl):")
    for row in rows { print("  " + row) }
}

/// The replication checkpoints (`_local` ids) in the gateway's database.
func checkpointIDs(_ gatewayDB: String) throws -> Set<String> {
    let ids = try runMeasured("/usr/bin/sqlite3", [gatewayDB, "SELECT id FROM local_documents ORDER BY id"],
                              environment: ProcessInfo.processInfo.environment, samplePeak: false)
    guard ids.status == 0 else { throw BenchError("cannot read the checkpoints of \(gatewayDB): \(ids.stderr)") }
    return Set(ids.stdout.split(separator: "\n").map(String.init))
}

/// curl's arguments for the requests a no-op sync makes: GET both checkpoints
/// (`_local/<replication id>`: the syncing store's push and pull) and the
/// `_changes` page from the gateway's current sequence, over one connection.
func noopRequests(checkpoints: Set<String>, url: String, token: String) throws -> [String] {
    guard checkpoints.count == 2 else { throw BenchError("expected the store's push and pull checkpoints, found \(checkpoints)") }
    let auth = ["-H", "Authorization: Bearer \(token)"]
    let info = try runMeasured("/usr/bin/curl", ["-sf"] + auth + [url], environment: ProcessInfo.processInfo.environment,
                               samplePeak: false)
    guard let seq = info.stdout.firstMatch(of: /"update_seq":("[^"]*"|[0-9]+)/).map({ String($0.1) }) else {
        throw BenchError("GET \(url) gave no update_seq: \(info.stdout.prefix(200))")
    }
    let since = seq.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? seq
    return ["-sf"] + auth + checkpoints.sorted().flatMap { ["-o", "/dev/null", url + "/_local/" + $0] }
        + ["-o", "/dev/null", url + "/_changes?feed=normal&style=all_docs&since=\(since)&limit=1000"]
}

/// The peak resident set (VmHWM) of a running process, in KB.
func peakRSSKB(_ pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}
