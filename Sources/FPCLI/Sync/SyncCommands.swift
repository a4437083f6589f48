import ArgumentParser
import FPConfig
import FPCore
import FPNet
import FPStore
import FPSync
import Foundation

/// Options every gateway client command shares.
struct GatewayClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Gateway database URL (default: $FPRINT_GATEWAY, else the app config's gatewayURL).",
                               valueName: "url"))
    var gateway: String?

    @Flag(help: "Do not verify the gateway's TLS certificate (unsafe; prints a warning).")
    var insecure = false

    func gatewayURL(_ workspace: Workspace) throws -> URL {
        var text = gateway ?? workspace.environment["FPRINT_GATEWAY"]
        if text == nil || text!.isEmpty { text = try workspace.loadConfig().appConfig.gatewayURL }
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { throw CommandFailure("invalid gateway URL \(HTTPError.displayURL(text ?? "")): use http(s)://host:port/db", .usage) }
        return url
    }

    func transport() -> CurlHTTPTransport {
        if insecure { Terminal.err("warning: --insecure: the gateway's TLS certificate is not verified") }
        return CurlHTTPTransport(insecure: insecure, userAgent: "fprint/\(Fprint.version)")
    }
}

struct Sync: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Replicate measurements with a CouchDB-protocol gateway (push, then pull).",
        discussion: """
            Works with fprint's own gateway, Apache CouchDB 3.x, Couchbase Sync Gateway and PouchDB Server. Incremental: checkpoints on both sides let the next sync start where this one ended. Documents made here that no gateway has accepted yet and that have no owner (couchbase_sync_gateway_id "-" or missing, as in imported Android dumps) are signed with your user id at their first push; the signature is kept only once the gateway accepts them. Documents received from a peer are never signed.

            Credentials come from --token, else user:password@ in the gateway URL (sent as Basic on every request), else $FPRINT_TOKEN, else what `fprint login` stored for this gateway URL (a token, or a CouchDB session cookie renewed before it expires); prefer the last ones (arguments are visible to other users in ps). Documents are only pushed signed: if the gateway cannot say who you are, unsigned documents are not pushed (exit 77).

            Documents the gateway refuses (403 for the document, 413 too large), deletions included, stay unsynced, are listed with the gateway's reason by `fprint status` and `fprint list --unsynced`, and are offered again on every sync; while any is refused, sync exits 77 naming them.

            Examples:
              fprint login --user alice
              fprint sync
              fprint sync --pull-only --gateway https://couch.example.org/fprint
              FPRINT_TOKEN=… fprint sync --dry-run
            """)

    @Flag(help: "Only send local changes.") var pushOnly = false
    @Flag(help: "Only receive the gateway's changes.") var pullOnly = false
    @Flag(help: "Show what would be sent and received; change nothing on either side.") var dryRun = false
    @Option(help: ArgumentHelp("Bearer token (prefer $FPRINT_TOKEN or `fprint login`).", valueName: "token"))
    var token: String?
    @Option(help: "Documents per batch at most (a push batch holds about 2 MB of text: large documents go fewer at a time).")
    var batchSize = Sync.defaultBatchSize
    /// `--batch-size` when none is given (also `quickParse`'s).
    static let defaultBatchSize = 500
    @Flag(help: "No progress and no summary line (errors and refusals still go to stderr).") var quiet = false
    @OptionGroup var client: GatewayClientOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if pushOnly && pullOnly { throw ValidationError("--push-only and --pull-only exclude each other") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func perform() async throws {
        // Started by fprint's main already; here for callers that skip it (tests).
        CurlLibrary.preload()
        Fprint.limitMallocArenas()
        let workspace = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let given = try client.gatewayURL(workspace)
        let store = try workspace.openStore(.write)
        let transport = client.transport()
        let auth = try GatewayAuth.resolve(given, explicitToken: token, workspace: workspace, transport: transport)
        let remote = RemoteDatabase(url: auth.url, transport: transport, credentials: auth.credentials)
        let printer = SyncProgressPrinter(quiet: quiet, dryRun: dryRun)
        let (pushOnly, pullOnly, dryRun, batchSize) = (self.pushOnly, self.pullOnly, self.dryRun, self.batchSize)
        // Ctrl-C or SIGTERM cancels the task: the transfer in flight aborts, what
        // is stored and checkpointed stays, and the command exits 130.
        let (reports, userID) = try await Interrupts.cancellable { () async throws -> ([SyncReport], String?) in
            let userID = pullOnly ? nil : await auth.userID(transport: transport)
            try Task.checkCancellation()
            let replicator = Replicator(store: store, remote: remote, limits: BatchLimits(count: batchSize),
                                        userID: userID, dryRun: dryRun, progress: { printer.update($0) })
            var reports: [SyncReport] = []
            // A typed `do`: `catch let error as SyncError` here crashes Swift 6.3.1's SILGen.
            do throws(SyncError) {
                var opening = try await replicator.open(push: !pullOnly, pull: !pushOnly)
                if !pullOnly {
                    let pushed = try await replicator.push(opening)
                    reports.append(pushed)
                    opening = opening.afterPush(pushed)
                }
                if !pushOnly { reports.append(try await replicator.pull(opening)) }
            } catch {
                printer.finish()
                throw CommandFailure(error)
            }
            return (reports, userID)
        }
        printer.finish()
        let pushed = reports.first { $0.direction == .push }
        let pulled = reports.first { $0.direction == .pull }
        // --quiet: nothing on stdout either (cron); refusals and errors still go to stderr.
        if !quiet { Terminal.out(Self.summary(pushed: pushed, pulled: pulled, userID: userID, dryRun: dryRun, remote: remote.displayURL)) }
        DamageLog.shared.record(reports.flatMap(\.damaged))
        let refused = pushed?.refusals ?? []
        for r in refused.prefix(10) { Terminal.err("refused by the gateway: \(r.id): \(r.reason)") }
        if refused.count > 10 { Terminal.err("… and \(refused.count - 10) more (`fprint status` lists them)") }
        if !dryRun {
            // A note, not data: a failure to write it does not fail the sync.
            do {
                try LastSyncNote(paths: workspace.paths, store: store).write(
                    gateway: remote.displayURL, sent: pushed?.written ?? 0, received: pulled?.written ?? 0,
                    refused: refused.count)
            } catch {
                Terminal.err("warning: could not note this sync for `fprint status`: \(error)")
            }
        }
        // Everything is committed; closing moves the log into the file now.
        do { try store.close() } catch { Terminal.err("warning: \(workspace.databasePath): \(error)") }
        // Documents received are evaluated like documents measured here.
        if !dryRun, (pulled?.written ?? 0) > 0 { await AlertsAfterStoring.evaluate(workspace) }
        if !refused.isEmpty { throw CommandFailure(Self.refusalMessage(refused), .authRejected) }
    }

    /// `sent 3 of 47 changed, signed 3 as alice, received 0 of 3 changed (3
    /// already here) — URL`.
    static func summary(pushed: SyncReport?, pulled: SyncReport?, userID: String?, dryRun: Bool, remote: String) -> String {
        var parts: [String] = []
        if let pushed {
            parts.append("\(dryRun ? "would send" : "sent") \(pushed.written) of \(pushed.examined) changed")
            if pushed.signed > 0 { parts.append("\(dryRun ? "would sign" : "signed") \(pushed.signed) as \(userID ?? "?")") }
        }
        if let pulled {
            var notes: [String] = []
            let already = pulled.examined - pulled.written
            if already > 0 { notes.append("\(already) already here") }
            if pulled.skipped > 0 { notes.append("\(Terminal.counted(pulled.skipped, "design document")) skipped") }
            parts.append("\(dryRun ? "would receive" : "received") \(pulled.written) of \(pulled.examined) changed"
                + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"))
        }
        return "\(dryRun ? "dry run: " : "")\(parts.joined(separator: ", ")) — \(remote)"
    }

    /// The error line of a sync the gateway refused documents in: which
    /// ones, and the gateway's reason (the first one's, when several).
    static func refusalMessage(_ refused: [Refusal]) -> String {
        guard refused.count > 1 else {
            return "the gateway refused 1 document (\(refused[0].id)): \(refused[0].reason); "
                + "it stays unsynced and is offered again at the next sync"
        }
        let named = refused.prefix(3).map(\.id).joined(separator: ", ") + (refused.count > 3 ? ", …" : "")
        return "the gateway refused \(refused.count) documents (\(named)), \(refused[0].id) with \(refused[0].reason); "
            + "they stay unsynced and are offered again at the next sync (`fprint status` gives every reason)"
    }
}

/// `sent 120/470` progress: a bar rewritten in place on a TTY, a line per
/// batch when stderr is piped.
final class SyncProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private let tty = Terminal.stderrIsTTY
    private let quiet: Bool
    private let dryRun: Bool
    private var active = false

    init(quiet: Bool, dryRun: Bool = false) {
        self.quiet = quiet
        self.dryRun = dryRun
    }

    /// `push: sent 3/47 (43 already there, 1 refused)`: documents moved of
    /// those examined; the ones the other side already had, and those it
    /// refused, are said apart.
    static func line(_ p: SyncProgress, dryRun: Bool) -> String {
        let verb = switch (p.direction, dryRun) {
        case (.push, false): "sent"
        case (.push, true): "would send"
        case (.pull, false): "received"
        case (.pull, true): "would receive"
        }
        var notes: [String] = []
        if p.alreadyThere > 0 { notes.append("\(p.alreadyThere) already \(p.direction == .push ? "there" : "here")") }
        if p.refused > 0 { notes.append("\(p.refused) refused") }
        return "\(verb) \(p.transferred)/\(p.total)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
    }

    func update(_ p: SyncProgress) {
        guard !quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        if tty {
            let width = 30
            let filled = p.total == 0 ? width : min(width, p.done * width / max(1, p.total))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            Terminal.status("\(p.direction.rawValue) [\(bar)] \(Self.line(p, dryRun: dryRun))")
            active = true
        } else if p.total > 0 {
            Terminal.err("\(p.direction.rawValue): \(Self.line(p, dryRun: dryRun))")
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if active { Terminal.endStatus() }
        active = false
    }
}
