import FPCore
import FPNet
import Foundation
import Testing

@testable import FPConfig

@Suite struct ConfigLoaderTests {
    static let appConfigText = """
        {"gatewayURL": "http://127.0.0.1:5984/fprint", "authURL": "http://127.0.0.1:5984/_session",
         "scenariosURL": "scenarios.json",
         "maps": [{"id": "J1NP", "location": "L", "description": "D", "mapURL": "u"}]}
        """
    static let scenariosText = """
        {"scenarios": [{"scenarioID": "s1", "name": "N", "mapID": "J1NP", "points": [{"X": 1, "Y": 2}, {"X": 3, "Y": 2}]}]}
        """

    // MARK: Local files

    @Test func relativeScenariosURLResolvesAgainstTheConfigFile() throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try Support.write(Self.appConfigText.replacingOccurrences(of: "\"scenarios.json\"", with: "\"../walks/s.json\""),
                          to: root.appendingPathComponent("conf/app.json"))
        try Support.write(Self.scenariosText, to: root.appendingPathComponent("walks/s.json"))

        // Loaded through a relative path from another working directory.
        let loader = ConfigLoader(cacheDirectory: root.appendingPathComponent("cache").path, transport: NoNetwork(),
                                  currentDirectory: root.appendingPathComponent("walks").path)
        let loaded = try loader.load(from: "../conf/./app.json")
        #expect(loaded.source == root.appendingPathComponent("conf/app.json").path)
        #expect(loaded.scenariosSource == root.appendingPathComponent("walks/s.json").path)
        #expect(loaded.baseDirectory == root.appendingPathComponent("conf").path)
        #expect(try loaded.scenarios.scenarios.map(\.scenarioID) == ["s1"])
        #expect(!loaded.fromCache && loaded.warning == nil)
        // Local files are not cached.
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("cache").path))

        // The same through a file:// URL.
        let viaURL = try loader.load(from: root.appendingPathComponent("conf/app.json").absoluteString)
        #expect(try viaURL.scenarios == loaded.scenarios)
    }

    @Test func localErrorsNameTheFile() throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let loader = ConfigLoader(cacheDirectory: root.path, transport: NoNetwork())
        let missing = root.appendingPathComponent("nope.json").path
        #expect(throws: ConfigError("\(missing): no such file")) { try loader.load(from: missing) }

        try Support.write(Self.appConfigText, to: root.appendingPathComponent("app.json"))
        try Support.write(#"{"scenarios": [{"scenarioID": "s1", "name": "N", "mapID": "J2NP", "points": [{"X": 1, "Y": 2}, {"X": 3, "Y": 2}]}]}"#,
                          to: root.appendingPathComponent("scenarios.json"))
        let scenarios = root.appendingPathComponent("scenarios.json").path
        // The app config loads; the scenarios' error waits for whoever needs them.
        let loaded = try loader.load(from: root.appendingPathComponent("app.json").path)
        #expect(loaded.appConfig.maps.map(\.id) == ["J1NP"])
        #expect(throws: ConfigError("\(scenarios): $.scenarios[0].mapID: \"J2NP\" names no map of the app config (maps: J1NP)")) {
            try loaded.scenarios
        }
    }

    @Test func locationsParseAndResolve() throws {
        #expect(try ConfigLocation.parse("Config/app-config.json", currentDirectory: "/repo") == .file("/repo/Config/app-config.json"))
        #expect(try ConfigLocation.parse("/etc/../srv/a.json", currentDirectory: "/x") == .file("/srv/a.json"))
        #expect(try ConfigLocation.parse("file:///srv/a%20b.json", currentDirectory: "/x") == .file("/srv/a b.json"))
        let remote = try ConfigLocation.parse("HTTPS://example.org/cfg/app.json", currentDirectory: "/x")
        #expect(remote == .remote(try #require(URL(string: "HTTPS://example.org/cfg/app.json"))))
        #expect(throws: ConfigError("ftp://h/a.json: unsupported URL scheme \"ftp\"; use a path, file:// or http(s)://")) {
            try ConfigLocation.parse("ftp://h/a.json", currentDirectory: "/")
        }

        let base = ConfigLocation.remote(try #require(URL(string: "http://h:8080/cfg/app.json")))
        #expect(try base.resolving("../Scenarios/s.json", referencedAt: "$.scenariosURL")
            == .remote(try #require(URL(string: "http://h:8080/Scenarios/s.json"))))
        #expect(try base.resolving("/s.json", referencedAt: "$.scenariosURL") == .remote(try #require(URL(string: "http://h:8080/s.json"))))
        #expect(try base.resolving("https://other/s.json", referencedAt: "$.scenariosURL")
            == .remote(try #require(URL(string: "https://other/s.json"))))
        #expect(throws: ConfigError("http://h:8080/cfg/app.json: $.scenariosURL: a remote app config cannot refer to a local file (file:///etc/passwd)")) {
            try base.resolving("file:///etc/passwd", referencedAt: "$.scenariosURL")
        }
        let file = ConfigLocation.file("/repo/Config/app-config.json")
        #expect(try file.resolving("../Scenarios/scenarios.json", referencedAt: "$.scenariosURL") == .file("/repo/Scenarios/scenarios.json"))
        #expect(try file.resolving("/abs/s.json", referencedAt: "$.scenariosURL") == .file("/abs/s.json"))
        #expect(file.directory == "/repo/Config")
        #expect(base.directory == nil)
    }

    // MARK: Remote, with the offline cache

    @Test func fallsBackToTheCacheWhenTheServerIsGone() async throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let served = root.appendingPathComponent("www")
        try Support.write(Self.appConfigText, to: served.appendingPathComponent("cfg/app-config.json"))
        try Support.write(Self.scenariosText, to: served.appendingPathComponent("cfg/scenarios.json"))
        let server = try await LocalServer.http(serving: served)
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("cfg/app-config.json").absoluteString
        let loader = ConfigLoader(cacheDirectory: root.appendingPathComponent("cache").path, transport: CurlHTTPTransport(),
                                  timeouts: HTTPTimeouts(connect: 2, total: 5))

        let fresh = try loader.load(from: url)
        #expect(!fresh.fromCache && fresh.warning == nil)
        #expect(fresh.source == url)
        #expect(fresh.scenariosSource == server.baseURL.appendingPathComponent("cfg/scenarios.json").absoluteString)
        #expect(fresh.baseDirectory == nil)
        #expect(try fresh.scenarios.scenarios.count == 1)

        server.stop()
        let offline = try loader.load(from: url)
        #expect(offline.fromCache)
        #expect(offline.appConfig == fresh.appConfig)
        #expect(try offline.scenarios == fresh.scenarios)
        let warning = try #require(offline.warning)
        #expect(warning.hasPrefix("cannot reach \(url): "))
        #expect(warning.contains("; using the copy cached at 20"))
        #expect(!warning.contains("\n"))
    }

    @Test func invalidRemoteContentNeverReplacesTheCache() async throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let served = root.appendingPathComponent("www")
        let appFile = served.appendingPathComponent("app-config.json")
        try Support.write(Self.appConfigText, to: appFile)
        try Support.write(Self.scenariosText, to: served.appendingPathComponent("scenarios.json"))
        let server = try await LocalServer.http(serving: served)
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("app-config.json").absoluteString
        let cacheDirectory = root.appendingPathComponent("cache")
        let loader = ConfigLoader(cacheDirectory: cacheDirectory.path, transport: CurlHTTPTransport())

        let good = try loader.load(from: url)
        let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path).sorted()
        #expect(cacheFiles.count == 2)
        #expect(cacheFiles.allSatisfy { !$0.hasPrefix(".") })  // no temporary files left behind
        let appCache = cacheDirectory.appendingPathComponent(try #require(cacheFiles.first { $0.hasPrefix("app-config-") }))
        let cachedBefore = try Data(contentsOf: appCache)

        // Broken JSON on the server: the cached copy answers, with the reason.
        try Support.write("{\"gatewayURL\": ", to: appFile)
        let broken = try loader.load(from: url)
        #expect(broken.fromCache)
        #expect(broken.appConfig == good.appConfig)
        #expect(broken.warning?.hasPrefix("\(url): not valid JSON near line 1, column 16: unexpected end of the document; using the copy cached at ") == true)

        // Valid JSON that fails validation: the same.
        try Support.write(Self.appConfigText.replacingOccurrences(of: "\"J1NP\"", with: "7"), to: appFile)
        let invalid = try loader.load(from: url)
        #expect(invalid.fromCache)
        #expect(invalid.warning?.hasPrefix("\(url): $.maps[0].id: expected a string, found number; ") == true)

        // The app config's cached copy is untouched (the valid scenarios were refreshed).
        #expect(try Data(contentsOf: appCache) == cachedBefore)

        // And once the server is gone the good copy is still there.
        server.stop()
        #expect(try loader.load(from: url).appConfig == good.appConfig)
    }

    @Test func withoutACacheFetchFailuresAreErrors() async throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await LocalServer.http(serving: root)
        defer { server.stop() }
        let loader = ConfigLoader(cacheDirectory: root.appendingPathComponent("cache").path, transport: CurlHTTPTransport())
        let missing = server.baseURL.appendingPathComponent("missing.json").absoluteString
        #expect(throws: ConfigError("\(missing): the server answered HTTP 404")) { try loader.load(from: missing) }

        server.stop()
        do {
            _ = try loader.load(from: missing)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("cannot reach \(missing): "))
        }
    }

    /// Fresh scenarios that name a map the app config lacks are invalid too:
    /// the cached scenarios are used (with a fake transport, no server needed).
    @Test func scenariosFailingTheMapCheckFallBackToTheCache() throws {
        let root = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let transport = FakeTransport(files: ["/app-config.json": Self.appConfigText, "/scenarios.json": Self.scenariosText])
        let loader = ConfigLoader(cacheDirectory: root.path, transport: transport)
        let good = try loader.load(from: "http://config.test/app-config.json")

        transport.set("/scenarios.json", Self.scenariosText.replacingOccurrences(of: "J1NP", with: "J7NP"))
        let fallback = try loader.load(from: "http://config.test/app-config.json")
        #expect(try fallback.scenarios == good.scenarios)
        #expect(fallback.fromCache)
        #expect(fallback.warning?.hasPrefix(#"http://config.test/scenarios.json: $.scenarios[0].mapID: "J7NP" names no map of the app config (maps: J1NP); using the copy cached at "#) == true)
        #expect(transport.requests.allSatisfy { $0.headers["Accept"] == "application/json" })
    }

    @Test func cacheFileNamesAreStablePerURL() throws {
        let a = try #require(URL(string: "http://h/app.json")), b = try #require(URL(string: "http://h/app2.json"))
        let cache = ConfigCache(directory: "/c")
        #expect(cache.path(.appConfig, url: a) == cache.path(.appConfig, url: a))
        #expect(cache.path(.appConfig, url: a) != cache.path(.appConfig, url: b))
        #expect(cache.path(.appConfig, url: a) != cache.path(.scenarios, url: a))
        #expect(ConfigCache.fnv1a("") == "cbf29ce484222325")
        #expect(ConfigCache.fnv1a("a") == "af63dc4c8601ec8c")
    }
}

/// Serves fixed bodies by URL path; records requests.
final class FakeTransport: BlockingHTTPTransport, @unchecked Sendable {
    // @unchecked: all state behind `lock`.
    private let lock = NSLock()
    private var files: [String: String]
    private var recorded: [HTTPRequest] = []

    init(files: [String: String]) { self.files = files }

    func set(_ path: String, _ text: String) { lock.withLock { files[path] = text } }
    var requests: [HTTPRequest] { lock.withLock { recorded } }

    func sendBlocking(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock {
            recorded.append(request)
            guard let text = files[request.url.path] else { return HTTPResponse(status: 404) }
            return HTTPResponse(status: 200, body: Data(text.utf8))
        }
    }
}
