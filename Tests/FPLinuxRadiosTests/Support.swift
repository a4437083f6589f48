import FPCore
import FPTestSupport
import Foundation
import Testing

enum Fixtures {
    static func url(_ relative: String) throws -> URL { FixtureFolder(.module).url(relative) }

    static func text(_ relative: String) throws -> String { try FixtureFolder(.module).text(relative) }
}

/// A context on a real monotonic clock at a fixed point (the engine's real-provider setup).
func realContext() -> CaptureContext {
    CaptureContext(clock: MonotonicClock(), level: "J1NP") { _ in MapPoint(x: 0, y: 0) }
}

/// The path of an executable on PATH (or the usual sbin folders), if installed.
func which(_ name: String) -> String? {
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/sbin:/usr/local/sbin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Real-component tests run when the component is installed, and are listed
/// as skipped, with the reason, when it is not (`.enabled(if:)` below); CI
/// (`.ci/run` installs them) sets FPRINT_REQUIRE_REAL=1 so a missing tool
/// fails instead of skipping.
func requireTool(_ name: String) -> String? {
    if let p = which(name) { return p }
    if ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1" {
        Issue.record("\(name) is not installed but FPRINT_REQUIRE_REAL=1 (run .ci/run's apt line)")
    }
    return nil
}

/// Runs the test when every tool is installed or FPRINT_REQUIRE_REAL=1 (which
/// then fails it in `requireTool`); otherwise Swift Testing reports it skipped.
func toolsInstalled(_ names: String...) -> Bool {
    names.allSatisfy { which($0) != nil } || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1"
}
