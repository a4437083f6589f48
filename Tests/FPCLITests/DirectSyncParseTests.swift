import ArgumentParser
@testable import FPCLI
import Testing

/// `fprint sync` is parsed with `sync` as its own root (`Fprint.directSync`),
/// which skips building every other command's arguments. It must read the
/// arguments exactly as the whole tree does, and leave everything else
/// (help, mistakes, completion scripts, other commands) to the tree, whose
/// messages name `fprint sync`.
@Suite struct DirectSyncParseTests {
    /// The parsed command's every property, wrappers included.
    func described(_ sync: Sync) -> String { String(describing: sync) }

    @Test(arguments: [
        ["sync"],
        ["sync", "--quiet"],
        ["sync", "--push-only", "--dry-run", "--token", "t0k", "--batch-size", "7", "--gateway", "http://h:5984/db",
         "--insecure", "--db", "/tmp/a.sqlite", "--config", "c.json"],
        ["sync", "--pull-only", "--batch-size=20", "--db=/tmp/b.sqlite"],
        ["sync", "--gateway", "https://u:p@couch.example.org/fprint", "--quiet", "--dry-run"],
    ])
    func argumentsAreReadAsTheWholeTreeReadsThem(arguments: [String]) throws {
        let direct = try #require(Fprint.directSync(arguments))
        let whole = try #require(try Fprint.parseAsRoot(arguments) as? Sync)
        #expect(described(direct) == described(whole))
    }

    /// The usual spellings are read without ArgumentParser (`Sync.quickParse`),
    /// and read as it reads them: every combination of the flags, with and
    /// without each option.
    @Test func theQuickReadingMatchesArgumentParserOnEveryCombination() throws {
        let flags = ["--push-only", "--pull-only", "--dry-run", "--quiet", "--insecure"]
        let options = [["--gateway", "http://127.0.0.1:5984/fprint"], ["--db", "/tmp/x y.sqlite"], ["--token", ""],
                       ["--config", "https://h/app-config.json"], ["--batch-size", "0012"]]
        var compared = 0
        for flagMask in 0..<(1 << flags.count) {
            for optionMask in 0..<(1 << options.count) {
                var arguments = flags.indices.filter { flagMask & (1 << $0) != 0 }.map { [flags[$0]] }
                arguments += options.indices.filter { optionMask & (1 << $0) != 0 }.map { options[$0] }
                // Reversed on odd masks: order does not matter to either reading.
                if (flagMask + optionMask) % 2 == 1 { arguments.reverse() }
                let flat = arguments.flatMap { $0 }
                let whole = try? Sync.parseAsRoot(flat) as? Sync
                guard let quick = Sync.quickParse(flat) else {
                    // Only what ArgumentParser refuses is left to it.
                    #expect(whole == nil, "quickParse left \(flat) to ArgumentParser")
                    continue
                }
                let parsed = try #require(whole, "quickParse took \(flat), which ArgumentParser refuses")
                #expect(described(quick) == described(parsed), "\(flat)")
                compared += 1
            }
        }
        #expect(compared == 3 * (1 << 3) * (1 << options.count))  // all but --push-only with --pull-only
    }

    @Test(arguments: [
        ["--db=/tmp/a.sqlite"], ["--db", "/a", "--db", "/b"], ["--quiet", "--quiet"], ["--gateway", "-x"],
        ["--gateway"], ["--batch-size", "+5"], ["--batch-size", "0"], ["--batch-size", ""],
        ["--batch-size", "99999999999999999999"], ["-h"], ["--help"], ["--push-only", "--pull-only"], ["extra"],
    ])
    func unusualSpellingsAreLeftToArgumentParser(arguments: [String]) {
        #expect(Sync.quickParse(arguments) == nil)
    }

    /// The description tells parsed commands apart (the comparison above could fail).
    @Test func differentArgumentsDescribeDifferently() throws {
        let quiet = try #require(Fprint.directSync(["sync", "--quiet"]))
        let loud = try #require(Fprint.directSync(["sync"]))
        let batch = try #require(Fprint.directSync(["sync", "--batch-size", "8"]))
        #expect(Set([described(quiet), described(loud), described(batch)]).count == 3)
    }

    @Test(arguments: [
        [], ["list"], ["syncx"], ["sync", "--help"], ["sync", "-h"], ["sync", "help"], ["sync", "--version"],
        ["sync", "--bogus"], ["sync", "--push-only", "--pull-only"], ["sync", "--batch-size", "many"],
        ["sync", "--generate-completion-script", "bash"], ["sync", "--experimental-dump-help"], ["sync", "extra"],
    ])
    func everythingElseIsLeftToTheWholeTree(arguments: [String]) {
        #expect(Fprint.directSync(arguments) == nil)
    }

    /// The one test of "this is `fprint sync`" that libcurl's early loading and the direct parse share.
    @Test func onlyAFirstArgumentOfSyncNamesSync() {
        #expect(Fprint.namesSync(["sync"]))
        #expect(Fprint.namesSync(["fprint", "sync", "--quiet"].dropFirst()))
        #expect(!Fprint.namesSync([String]()))
        #expect(!Fprint.namesSync(["syncx"]))
        #expect(!Fprint.namesSync(["list", "sync"]))
        #expect(!Fprint.namesSync(["fprint"].dropFirst()))
    }
}
