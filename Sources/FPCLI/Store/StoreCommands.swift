import ArgumentParser
import FPCore
import FPNet
import FPStore
import FPSync
import Foundation

struct Check: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify every stored body and the revision tree; list what is damaged.",
        discussion: """
            Reads every stored revision back (decompression, zstd checksum, JSON), checks the revision tree and runs SQLite's integrity check. Opens the database read-only. Exit 0 when all is sound, 74 when something is damaged (`fprint repair` mends or quarantines it).

            Examples:
              fprint check
              fprint check --db field-laptop.sqlite
            """)

    @OptionGroup var storeOptions: StoreOptions

    func perform() async throws {
        let store = try Workspace(storeOptions: storeOptions).openStore(.read)
        let started = DispatchTime.now().uptimeNanoseconds
        let progress = Throttled.lineEvery(seconds: 1)
        let report = try store.check { done, total in progress("checked \(done) of \(total) revisions") }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        for d in report.damaged { Terminal.out("damaged: \(d.id) \(d.rev ?? "-"): \(d.reason)") }
        for line in report.sqlite { Terminal.out("sqlite: \(line)") }
        if let counts = report.counts { Terminal.out("counts: \(counts)") }
        let quarantined = (try? store.quarantined().count) ?? 0
        Terminal.err(String(format: "%d documents, %d bodies read back in %.2f s: %@", report.documents, report.bodies,
                            seconds, report.isSound ? "sound" : Self.findings(report))
                     + (quarantined > 0 ? "; \(quarantined) revision(s) in quarantine" : ""))
        if !report.isSound {
            throw CommandFailure("the database has damage; `fprint repair` re-fetches it from the gateway or quarantines it", .ioError)
        }
    }

    static func findings(_ report: StoreCheckReport) -> String {
        "\(report.damaged.count) damaged, \(report.sqlite.count) SQLite findings" + (report.counts == nil ? "" : ", status counts wrong")
    }
}

struct Repair: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Mend damaged documents: re-fetch them from the gateway, else quarantine them.",
        discussion: """
            Runs `fprint check`; every damaged revision the gateway has is fetched again and put back under the same revision. The others are moved, with every revision of their document, into the database's quarantine table, raw bytes kept, so every other command works again; nothing is deleted on the gateway. --offline quarantines without asking the gateway.

            Examples:
              fprint repair
              fprint repair --offline
            """)

    @Flag(help: "Do not ask the gateway; quarantine every damaged document.") var offline = false
    @Option(help: ArgumentHelp("Bearer token (prefer $FPRINT_TOKEN or `fprint login`).", valueName: "token"))
    var token: String?
    @OptionGroup var client: GatewayClientOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.write)
        let report = try store.check()
        if report.counts != nil {
            try store.recount()
            Terminal.err("recounted the documents `fprint status` shows")
        }
        guard !report.damaged.isEmpty else {
            Terminal.err("nothing to repair: every stored body reads back" + (report.sqlite.isEmpty ? "" : " (SQLite reports \(report.sqlite.count) finding(s); see `fprint check`)"))
            return
        }
        var remaining = report.damaged
        var restored: [String] = []
        if !offline, let remote = try remoteDatabase(ws) {
            remaining = []
            var reachable = true
            for d in report.damaged {
                guard reachable, let rev = d.rev.flatMap(Revision.init) else { remaining.append(d); continue }
                do {
                    let content = try await Self.fetch(remote, id: d.id, rev: rev)
                    try store.restoreBody(content)
                    restored.append("\(d.id) \(rev)")
                } catch SyncError.unreachable(let why) {
                    Terminal.err("warning: gateway unreachable (\(why)): quarantining the rest")
                    reachable = false
                    remaining.append(d)
                } catch {
                    remaining.append(d)
                }
            }
        }
        for r in restored { Terminal.out("restored from the gateway: \(r)") }
        let moved = try store.quarantine(remaining)
        for id in moved { Terminal.out("quarantined: \(id)") }
        Terminal.err("\(restored.count) revision(s) restored, \(moved.count) document(s) quarantined")
    }

    /// The gateway, when one is configured and a token is at hand; nil otherwise.
    func remoteDatabase(_ ws: Workspace) throws -> RemoteDatabase? {
        guard let url = try? client.gatewayURL(ws) else { return nil }
        let transport = client.transport()
        let auth = try GatewayAuth.resolve(url, explicitToken: token, workspace: ws, transport: transport)
        return RemoteDatabase(url: auth.url, transport: transport, credentials: auth.credentials,
                              retry: RetryPolicy(attempts: 2, initialDelay: 0.2, maxDelay: 1))
    }

    /// The revision as the gateway keeps it; it must be the same revision.
    static func fetch(_ remote: RemoteDatabase, id: String, rev: Revision) async throws -> RevisionContent {
        let answer = try await remote.json(.get, [id], query: [("rev", rev.description), ("revs", "true")])
        guard var object = answer.objectValue, object["_rev"]?.stringValue == rev.description else {
            throw CommandFailure("the gateway answered another revision of \(id)")
        }
        let history = RevisionContent.history(fromRevisions: object["_revisions"]) ?? [rev]
        let deleted = object["_deleted"]?.boolValue ?? false
        for key in object.keys where key.hasPrefix("_") { object[key] = nil }
        return RevisionContent(id: id, rev: rev, deleted: deleted, body: .object(object), history: history)
    }
}

struct Maintenance: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "Compact a database: recompress pre-v4 text bodies, drop attachment bytes no revision names, enlarge 4 KB pages, VACUUM.",
        discussion: """
            Attachment bytes (a `--keep-raw` capture, say) stay in the database after an edit removed them, the document was deleted or its conflicting revision pruned; maintenance drops those no stored revision names. A document whose stored revisions cannot all be read keeps all its attachments.

            Each step is one transaction: Ctrl-C stops between steps and keeps what is done; even a crash mid-step loses nothing (SQLite rolls the step back). VACUUM needs free space about the size of the database.

            Example:
              fprint maintenance --db old.sqlite
            """)

    @OptionGroup var storeOptions: StoreOptions

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions)
        guard FileManager.default.fileExists(atPath: ws.databasePath) else {
            throw CommandFailure("no database at \(ws.databasePath)", .notFound)
        }
        let report: MaintenanceReport
        do {
            report = try Interrupts.stoppingBetweenSteps(note: "stopping after this step…") {
                try SQLiteDocumentStore.maintain(path: ws.databasePath, progress: { Terminal.err($0) },
                                                 shouldStop: { Interrupts.requested })
            }
        } catch let e as StoreError {
            throw CommandFailure("\(ws.databasePath): \(e.description)", .ioError)
        }
        if !report.finished {
            Terminal.err("interrupted: \(report.recompressed) bodies recompressed so far are kept; run it again to finish")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        Terminal.err(String(format: "done: %d bodies recompressed, %d unreferenced attachments dropped, pages %d → %d KB, "
                            + "%.1f → %.1f MB", report.recompressed, report.attachmentsDropped,
                            report.pageSizeBefore / 1024, report.pageSizeAfter / 1024,
                            Double(report.bytesBefore) / 1e6, Double(report.bytesAfter) / 1e6))
    }
}

enum Throttled {
    /// A closure that prints its line at most once per `seconds` (stderr).
    static func lineEvery(seconds: Double) -> (String) -> Void {
        var last = DispatchTime.now().uptimeNanoseconds
        return { line in
            let now = DispatchTime.now().uptimeNanoseconds
            if Double(now - last) / 1e9 >= seconds {
                last = now
                Terminal.err(line)
            }
        }
    }
}
