import ArgumentParser
import FPCore
import FPStore
import Foundation

struct Migrate: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Store legacy Radio F-Prints documents (pulled from the old gateway) in fprint's form.",
        discussion: """
            Each stored legacy document gets its converted form as a new revision, a child of the revision it has now, so the next sync carries it to the old gateway as an ordinary edit, not a conflict. The conversion is `fprint import`'s (numbers, local times in --timezone, BLE uuid → address, createdAt and durationMs from the start and end); the whole old body is kept under legacy.body and `migrated` says who migrated it, when and from which revision. A document without an owner (`-` or none, as the iOS app left it before upload) is signed by the user who migrates; a signed one keeps its owner, and the gateway takes the edit from that owner (or an admin) only: --owner picks one's own.

            A copy converted earlier by `fprint import` of a dump, which syncing made a conflict of the old server's revision, is deleted (its content is the new revision's); other conflicts are left alone. The new revisions are written in one transaction, or none is.

            Examples:
              fprint migrate --dry-run
              fprint migrate --map J1NP --owner alice
              fprint migrate --timezone Europe/Prague --json
            """)

    @Option(help: "Only documents of this map.") var map: String?
    @Option(help: "Only documents of this owner (couchbase_sync_gateway_id): a gateway takes edits of one's own documents only.")
    var owner: String?
    @Option(help: "Time zone of the old documents' local times (default this machine's).") var timezone: String?
    @Option(help: "Who migrates, recorded in each document's `migrated` (default the user of $FPRINT_TOKEN, else this login's name).")
    var by: String?
    @Flag(help: "Show what would change; store nothing.") var dryRun = false
    @Flag(help: "One JSON object per document, then a summary object.") var json = false
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if let timezone, TimeZone(identifier: timezone) == nil {
            throw ValidationError("--timezone: unknown time zone '\(timezone)'")
        }
        if let by, by.isEmpty || by.contains(where: \.isNewline) { throw ValidationError("--by: give a user name") }
    }

    func perform() async throws {
        let store = try Workspace(storeOptions: storeOptions).openStore(dryRun ? .read : .write)
        let zone = timezone.flatMap(TimeZone.init(identifier:)) ?? LegacyReading.timeZone
        let plan = try LegacyMigration.plan(store: store, map: map, owner: owner, timeZone: zone, by: by ?? Self.defaultUser,
                                            at: Date())
        for failure in plan.unreadable { Terminal.err("warning: \(failure)") }
        if !dryRun { try LegacyMigration.apply(plan, store: store) }
        report(plan)
    }

    /// The user of $FPRINT_TOKEN (its claims, unverified: a name to record), else this login's name.
    static var defaultUser: String {
        if let token = ProcessInfo.processInfo.environment["FPRINT_TOKEN"], let claims = TokenClaims.unverified(token) {
            return claims.subject
        }
        return NSUserName()
    }

    private func report(_ plan: LegacyMigration.Plan) {
        let verb = dryRun ? "would migrate" : "migrated"
        if json {
            var out: [UInt8] = []
            for step in plan.steps {
                CanonicalJSON.write(["id": .string(step.id), "from": .string(step.parent.description),
                                     "to": .string(step.rev.description), "level": .string(step.level),
                                     "resolvedConflicts": .array(step.staleCopies.map { .string($0.description) })],
                                    into: &out)
                out.append(UInt8(ascii: "\n"))
            }
            CanonicalJSON.write(["dryRun": .bool(dryRun), "migrated": .int(Int64(plan.steps.count)),
                                 "unreadable": .int(Int64(plan.unreadable.count)),
                                 "resolvedConflicts": .int(Int64(plan.staleCopyCount))], into: &out)
            out.append(UInt8(ascii: "\n"))
            Terminal.out(bytes: &out)
            return
        }
        for step in plan.steps {
            let resolved = step.staleCopies.isEmpty ? "" : "  (conflict \(step.staleCopies.map(\.description).joined(separator: ", ")) deleted)"
            Terminal.out(ControlText.escaped("\(step.id)  \(step.level)  \(step.parent) → \(step.rev)\(resolved)"))
        }
        var summary = "\(verb) \(Terminal.counted(plan.steps.count, "legacy document"))"
        if plan.staleCopyCount > 0 { summary += ", \(Terminal.counted(plan.staleCopyCount, "earlier imported copy", plural: "earlier imported copies")) deleted" }
        if !plan.unreadable.isEmpty { summary += "; \(plan.unreadable.count) could not be converted (left as they are)" }
        if plan.steps.isEmpty && plan.unreadable.isEmpty { summary = "no legacy documents to migrate" }
        Terminal.err(summary + (dryRun && !plan.steps.isEmpty ? " (dry run: nothing stored)" : ""))
    }
}
