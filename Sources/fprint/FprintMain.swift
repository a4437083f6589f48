import ArgumentParser
import FPCLI
import FPNet
#if canImport(Glibc)
import Glibc
#endif

/// All wiring lives in FPCLI so tests can run the same command tree.
@main
enum FprintMain {
    static func main() async {
        // Members of the fprint group scan through the package's capable copy (docs/install.md).
        RadioHelper.handOverIfGranted(CommandLine.arguments)
        if Fprint.namesSync(CommandLine.arguments.dropFirst()) { Fprint.limitMallocArenas() }
        await startLoadingCurl()
        // Failures leave inside (ArgumentParser exits with their code).
        if await !Fprint.runSyncDirectly(Array(CommandLine.arguments.dropFirst())) { await Fprint.main() }
        // Success: everything is written and closed by now. Leaving with
        // _exit skips the destructors of the ~30 libraries libcurl brings
        // (about 1 ms of every `sync`) and OpenSSL's exit-time cleanup.
        fflush(nil)
        _exit(0)
    }

    /// `sync` speaks HTTP at once: libcurl's ~30 libraries (~7 ms) load on
    /// another core while the arguments are parsed. Called on the
    /// cooperative pool (`@concurrent`: never on the caller's thread, even
    /// where nonisolated async functions run on the caller's actor by
    /// default), whose threads and libdispatch's exist by then: a thread
    /// created while the loading runs would wait for all of it
    /// (`CurlLibrary`). No-op sync 25.0 -> 20.5 ms median.
    @concurrent nonisolated static func startLoadingCurl() async {
        if Fprint.namesSync(CommandLine.arguments.dropFirst()) { CurlLibrary.preload() }
    }
}
