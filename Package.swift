// swift-tools-version:6.0
import PackageDescription

// The evaluator and the dataset readers are arithmetic over whole datasets: the
// suite checks every figure of 15 months of a public dataset (UJIReferenceTests),
// which took 53 s of an unoptimised debug build and was the suite's last test.
let optimizedEvenInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "fprint",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fprint", targets: ["fprint"]),
        .library(name: "FPCore", targets: ["FPCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already in the graph through Hummingbird; named because the gateway and its tests import HTTPTypes.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        // Errno and its messages, one typed way for every system call.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // The dashboard's HTML templates (`fprint gateway`'s /_dashboard/, `fprint dashboard`).
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // Hex text of bytes and back, without Foundation: the one encoder of every module.
        .target(name: "FPHex"),
        // Value types, the data contract and the protocols every other module meets at.
        .target(name: "FPCore", dependencies: ["FPHex", "CMD5x8", .product(name: "Crypto", package: "swift-crypto")]),
        // MD5 of eight messages at once in AVX2 registers, for FPCore's MD5Lanes.
        .target(name: "CMD5x8", path: "Sources/CMD5x8"),
        // libcurl for HTTP (remote config, sync, login), loaded with dlopen on first
        // use: its ~30 libraries cost every command's start otherwise. Its header
        // comes from Debian's libcurl4-openssl-dev.
        .target(name: "CCurl", path: "Sources/CCurl"),
        .target(name: "FPNet", dependencies: ["CCurl", "FPCore"]),
        // App config, scenarios, maps, persisted settings, XDG paths.
        .target(name: "FPConfig", dependencies: ["FPCore", "FPHex", "FPNet", .product(name: "SystemPackage", package: "swift-system")]),
        // SQLite document store with revisions, sequences and _local docs.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(name: "FPStore", dependencies: [
            "FPCore", "FPHex", "CZstd", "CStatfs", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // statfs(2), for the filesystem under a database (Glibc's module lacks it).
        .systemLibrary(name: "CStatfs"),
        // Simulated radios and the radio environments they are computed from.
        .target(name: "FPProviders", dependencies: ["FPCore"]),
        // BLE: pure HCI/H4/btsnoop/AD/beacon parsers, no dependencies but FPHex.
        .target(name: "FPHCI", dependencies: ["FPHex"]),
        // BlueZ headers (libbluetooth-dev): sockaddr_hci, hci_filter, hci_dev_info.
        .systemLibrary(name: "CHCI", providers: [.apt(["libbluetooth-dev"])]),
        // HCI sockets (raw and user channel), the command engine, scan control, adapter listing.
        .target(name: "FPTransport", dependencies: ["FPHCI", "CHCI", .product(name: "SystemPackage", package: "swift-system")]),
        // BLE providers: btsnoop replay and live HCI scanning into bleScans[].
        .target(name: "FPBLE", dependencies: [
            "FPCore", "FPHCI", "FPHex", "FPTransport", .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Real Linux sources: gpsd (GNSS), ModemManager (cellular), nl80211 (Wi-Fi), IIO (motion), the device (sysfs).
        // The kernel's netlink headers (sockaddr_nl), for the nl80211 socket.
        .systemLibrary(name: "CNetlink"),
        .target(name: "FPLinuxRadios", dependencies: ["FPCore", "FPHex", "CNetlink", .product(name: "SystemPackage", package: "swift-system")]),
        // CouchDB replication client (push, pull, checkpoints) over FPNet's HTTPTransport.
        .target(name: "FPSync", dependencies: [
            "FPCore", "FPHex", "FPNet", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // glibc's malloc.h: the gateway returns large buffers to the kernel.
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The web dashboard: server-rendered pages of a ReplicableStore's survey (no GRDB here either).
        .target(name: "FPDashboard", dependencies: [
            "FPCore", "FPAnalysis", "FPHex", "FPProbe",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        // `fprint gateway`: a CouchDB-protocol server over any FPCore.ReplicableStore (no GRDB here).
        .target(name: "FPGateway", dependencies: [
            "FPCore", "FPHex", "CMalloc", "CZlib", "FPDashboard", "FPAnalysis",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ]),
        // Network-quality probes (`fprint probe`, `fprint gateway --probe-port`): raw TCP/UDP sockets, results signed by the server.
        .target(name: "FPProbe", dependencies: [
            "FPCore", .product(name: "Crypto", package: "swift-crypto"), .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // The measurement engine: static measurements and walks.
        .target(name: "FPSession", dependencies: ["FPCore"]),
        // Evaluation and positioning: leave-one-out kNN, trilateration, Kalman, exports, plots. Pure, deterministic.
        .target(name: "FPAnalysis", dependencies: ["FPCore"], swiftSettings: optimizedEvenInDebug),
        // Public fingerprint datasets: CSV tables through a column mapping and the UJI long-term
        // layout, read into rows (truth, time, readings, tags) and turned into measurement documents.
        .target(name: "FPDatasets", dependencies: ["FPCore"], swiftSettings: optimizedEvenInDebug),
        // The command tree, as a library so tests run it in-process.
        .target(name: "FPCLI", dependencies: [
            "FPCore", "FPConfig", "FPStore", "FPProviders", "FPSession", "FPNet", "FPSync", "FPGateway",
            "FPBLE", "FPTransport", "FPHCI", "CMalloc",
            "FPLinuxRadios", "FPProbe", "FPDashboard", "FPDatasets",
            .product(name: "SystemPackage", package: "swift-system"),
            "FPAnalysis",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "fprint", dependencies: [
            "FPCLI", "FPNet", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Writes documents until killed: the store's crash-atomicity test drives it.
        .executableTarget(name: "fprint-store-torture", dependencies: ["FPCore", "FPStore"]),
        // `make bench`: store throughput and `fprint list` latency, figures printed.
        .executableTarget(name: "fprint-bench", dependencies: [
            "FPCore", "FPStore", "FPAnalysis", "FPHCI", "FPTestSupport", .product(name: "SystemPackage", package: "swift-system"),
        ]),

        // The HCI parsers' invariants under mutation: a few seconds run in the tests, and
        // fprint-libfuzz's hci and btsnoop targets check them under libFuzzer (`make fuzz`).
        .target(name: "FPHCIFuzz", dependencies: ["FPHCI", "FPHex"]),
        // `make bench`, BLE part: parse and end-to-end reports/s.
        .executableTarget(name: "fprint-ble-bench", dependencies: ["FPHCI", "FPBLE", "FPCore", "FPStore", "FPTransport"]),

        // Shared by the test targets: fixture folders and temporary folders.
        .target(name: "FPTestSupport", path: "Tests/TestSupport"),
        // Drives the gateway's and dashboard's Hummingbird applications from tests: in
        // process (`.router`) or over loopback TCP (`.live`). Not HummingbirdTesting:
        // its client brings AsyncHTTPClient and swift-nio-ssl's BoringSSL (~4 build minutes).
        .target(name: "FPHTTPTestSupport", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Tests/HTTPTestSupport"),
        .testTarget(name: "FPCoreTests", dependencies: ["FPTestSupport", "FPCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FPStoreTests", dependencies: ["FPTestSupport", "FPCore", "FPHex", "FPStore", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "FPConfigTests", dependencies: ["FPTestSupport", "FPConfig", "FPNet", "FPCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FPProvidersTests", dependencies: ["FPTestSupport", "FPProviders", "FPCore"]),
        .testTarget(name: "FPSessionTests", dependencies: ["FPSession", "FPCore"]),
        .testTarget(name: "FPHCITests", dependencies: ["FPTestSupport", "FPHCI", "FPHCIFuzz", "FPHex"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FPBLETests", dependencies: [
            "FPBLE", "FPTransport", "FPHCI", "FPHex", "FPCore", "FPSession", "FPTestSupport",
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        .testTarget(name: "FPLinuxRadiosTests", dependencies: ["FPTestSupport", "FPLinuxRadios", "FPCore", "FPHex"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FPGatewayTests", dependencies: [
            "FPGateway", "FPCore", "FPStore", "FPTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Hummingbird", package: "hummingbird"),
            "FPHTTPTestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], resources: [.copy("Fixtures")]),
        .testTarget(name: "FPDashboardTests", dependencies: [
            "FPDashboard", "FPGateway", "FPCore", "FPStore", "FPTestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            "FPHTTPTestSupport",
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .testTarget(name: "FPSyncTests", dependencies: ["FPTestSupport", "FPSync", "FPGateway", "FPCore", "FPStore", "FPNet"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "FPCLITests", dependencies: ["FPTestSupport", "FPCLI", "FPCore", "FPStore", "FPNet", "FPHCI", "FPHex", "CZlib",
                                                   .product(name: "GRDB", package: "GRDB.swift")],
                    exclude: ["Reference", "Fixtures"]),
        .testTarget(name: "FPAnalysisTests", dependencies: ["FPTestSupport", "FPAnalysis", "FPCore"]),
        .testTarget(name: "FPDatasetsTests", dependencies: ["FPTestSupport", "FPDatasets", "FPAnalysis", "FPCore"]),
        .testTarget(name: "FPProbeTests", dependencies: ["FPTestSupport", "FPProbe", "FPCore", "FPGateway"]),
    ]
)

// `make fuzz`: libFuzzer targets over every parser of outside input
// (Tests/fuzz/run.sh). Only in the sanitizer build, which sets FPRINT_LIBFUZZ
// and links libFuzzer's main(): an ordinary build would find no main.
// FPRINT_LIBFUZZ=gateway adds the gateway's and the beacon sheets' targets,
// whose modules (FPGateway, FPCLI: Hummingbird, NIO) triple the build's CPU.
if let libfuzz = Context.environment["FPRINT_LIBFUZZ"] {
    let gateway = libfuzz == "gateway"
    let gatewayDependencies: [Target.Dependency] = gateway
        ? ["FPGateway", "FPCLI", .product(name: "HTTPTypes", package: "swift-http-types")] : []
    package.targets.append(.executableTarget(name: "fprint-libfuzz", dependencies: [
        "FPCore", "FPNet", "FPSync", "FPAnalysis", "FPConfig", "FPDatasets", "FPProviders",
        "FPHCI", "FPHCIFuzz", "FPLinuxRadios", "FPProbe",
    ] + gatewayDependencies, swiftSettings: gateway ? [.define("FUZZ_GATEWAY")] : []))
}

// Every target sees the members (extension methods, conformances) only of the
// modules it imports itself, not of whatever its imports happen to import.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
