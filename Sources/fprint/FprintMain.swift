import ArgumentParser
import FPCLI

/// All wiring lives in FPCLI so tests can run the same command tree.
@main
enum FprintMain {
    static func main() async {
        await Fprint.main()
    }
}
