import ArgumentParser
import FPCLI
#if canImport(Glibc)
import Glibc
#endif

/// All wiring lives in FPCLI so tests can run the same command tree.
@main
enum FprintMain {
    static func main() async {
        // Failures leave inside (ArgumentParser exits with their code).
        await Fprint.main()
        // Success: everything is written and closed by now. Leaving with
        // _exit skips the destructors of the ~30 libraries libcurl brings
        // (about 1 ms of every `sync`) and OpenSSL's exit-time cleanup.
        fflush(nil)
        _exit(0)
    }
}
