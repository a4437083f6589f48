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

/// A TCP port nobody listens on right now (bound to 0, read back, released).
func freeTCPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try #require(fd >= 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    try #require(bound)
    return UInt16(bigEndian: addr.sin_port)
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
