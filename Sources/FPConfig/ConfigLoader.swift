import FPCore
import FPHex
import FPNet
import Foundation

/// An app config with its scenarios, and where they came from.
package struct LoadedConfig: Sendable, Equatable {
    package var appConfig: AppConfig
    /// The scenarios, or why they cannot be read: only `walk` and `scenarios`
    /// need them, so a broken scenarios file fails those and nothing else.
    package var scenarioLoad: Result<ScenarioSet, ConfigError>
    package var scenarios: ScenarioSet { get throws(ConfigError) { try scenarioLoad.get() } }
    /// The app config's path or URL (URL passwords hidden).
    package var source: String
    /// The scenarios' path or URL, after resolving a relative `scenariosURL`.
    package var scenariosSource: String
    /// True when the app config or the scenarios are the offline copy because
    /// fetching failed; `warning` then says why.
    package var fromCache: Bool
    /// One line for the user (fetch failures answered from the cache, a cache
    /// that could not be updated); nil when all went well.
    package var warning: String?
    /// The directory of a local app config, for sibling files such as
    /// environments; nil for a remote one.
    package var baseDirectory: String?
    /// Where the app config was read, without URL credentials.
    package var location: ConfigLocation?
    /// `user:password@` of the app config's URL, sent (as Basic) to that
    /// origin only: scenarios and environments the same server serves.
    var urlCredentials: URLCredentials?
}

/// Loads the app config and its scenarios from a file, `file://` or http(s) URL.
///
/// Remote documents are cached: every fetched copy that validates replaces
/// the cached one (atomically), and when a fetch fails or returns invalid
/// content the cached copy is used instead, with a warning. Invalid content
/// never replaces a cached copy. Local files are not cached: they are already
/// on this machine, and a missing local file is an error the user should see.
package struct ConfigLoader: Sendable {
    package let cacheDirectory: String
    package let transport: any BlockingHTTPTransport
    package let timeouts: HTTPTimeouts
    /// What relative config paths are relative to.
    package let currentDirectory: String
    /// Headers that authenticate a fetch of this URL (a credential stored for
    /// the gateway serving it); used unless the URL named its own credentials.
    package let authorize: @Sendable (URL) -> HTTPHeaders

    package init(cacheDirectory: String, transport: any BlockingHTTPTransport,
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: 5, total: 20),
                currentDirectory: String = FileManager.default.currentDirectoryPath,
                authorize: @escaping @Sendable (URL) -> HTTPHeaders = { _ in HTTPHeaders() }) {
        self.cacheDirectory = cacheDirectory
        self.transport = transport
        self.timeouts = timeouts
        self.currentDirectory = currentDirectory
        self.authorize = authorize
    }

    /// `location`: a path, `file://` URL or http(s) URL of the app config.
    package func load(from location: String) throws(ConfigError) -> LoadedConfig {
        try load(from: ConfigLocation.parse(location, currentDirectory: currentDirectory))
    }

    package func load(from given: ConfigLocation) throws(ConfigError) -> LoadedConfig {
        // Credentials in the URL become a header: never cached, shown or logged.
        var location = given
        var credentials: URLCredentials?
        if case .remote(let url) = given {
            let split = URLCredentials.split(url)
            location = .remote(split.url)
            credentials = split.credentials
        }
        let auth = FetchAuth(urlCredentials: credentials, origin: location.origin, authorize: authorize)
        let app = try obtain(.appConfig, at: location, auth: auth) { value, source throws(ConfigError) in
            try AppConfig(json: value, source: source)
        }
        let scenariosLocation = try location.resolving(app.value.scenariosURL, referencedAt: "$.scenariosURL")
        let scenarios = Result { () throws(ConfigError) in
            try obtain(.scenarios, at: scenariosLocation, auth: auth) { value, source throws(ConfigError) in
                try ScenarioSet(json: value, source: source, appConfig: app.value)
            }
        }
        let scenariosFetched = try? scenarios.get()
        let warnings = [app.warning, scenariosFetched?.warning].compactMap { $0 }
        return LoadedConfig(
            appConfig: app.value, scenarioLoad: scenarios.map(\.value), source: location.description,
            scenariosSource: scenariosLocation.description, fromCache: app.fromCache || scenariosFetched?.fromCache == true,
            warning: warnings.isEmpty ? nil : warnings.joined(separator: "; "), baseDirectory: location.directory,
            location: location, urlCredentials: credentials)
    }

    /// A map's file served beside a remote app config: its simulated radio
    /// environment or its beacon registry.
    package enum MapFile: String, Sendable {
        case environment = "environments", beacons

        var cacheKind: ConfigCache.Kind { self == .environment ? .environment : .beacons }
    }

    /// `environments/<MAP>.json` or `beacons/<MAP>.json` beside a remote app
    /// config, fetched with the config's credentials and cached like it. Nil
    /// when the server has none (404) and no copy is cached; other failures
    /// without a cached copy throw.
    package func loadMapFile<T>(_ file: MapFile, map: String, of loaded: LoadedConfig,
                                decode: @escaping (Data, String) throws -> T) throws(ConfigError) -> T? {
        guard let base = loaded.location, case .remote = base else { return nil }
        let location = try base.resolving("\(file.rawValue)/\(PercentEncoding.encode(map)).json", referencedAt: file.rawValue)
        let auth = FetchAuth(urlCredentials: loaded.urlCredentials, origin: base.origin, authorize: authorize)
        do {
            return try obtain(file.cacheKind, at: location, auth: auth) { value, source throws(ConfigError) in
                do { return try decode(CanonicalJSON.data(value), source) } catch let error as ConfigError {
                    throw error
                } catch {
                    throw ConfigError(source: source, "\(error)")
                }
            }.value
        } catch {
            if error.notFound { return nil }
            throw error
        }
    }

    /// A floor-plan picture a remote app config names (`maps[].floorPlan.image`,
    /// relative to it), fetched with the config's credentials; its last good
    /// copy is cached (base64 in the envelope) for offline use. Nil for a
    /// local config. Larger than `maxBytes`: an error, nothing cached.
    package func loadPicture(_ reference: String, of loaded: LoadedConfig, maxBytes: Int) throws(ConfigError) -> [UInt8]? {
        guard let base = loaded.location, case .remote = base else { return nil }
        // Resolved as any reference of remote content: never a file of this machine.
        guard case .remote(let url) = try base.resolving(reference, referencedAt: "floorPlan.image") else { return nil }
        let auth = FetchAuth(urlCredentials: loaded.urlCredentials, origin: base.origin, authorize: authorize)
        let cache = ConfigCache(directory: cacheDirectory)
        do throws(ConfigError) {
            let data = try fetch(url, headers: auth.headers(for: url), accept: "image/*")
            guard data.count <= maxBytes else {
                throw ConfigError(source: HTTPError.displayURL(url.absoluteString), "the picture is over \(maxBytes >> 20) MiB")
            }
            try? cache.write(.picture, url: url, content: .string(data.base64EncodedString()))
            return Array(data)
        } catch {
            guard let cached = cache.read(.picture, url: url), case .string(let text) = cached.content,
                  let data = Data(base64Encoded: text) else { throw error }
            return Array(data)
        }
    }

    /// Which credentials a fetch carries: the app config URL's own, to its
    /// origin only; otherwise whatever `authorize` gives for the URL.
    struct FetchAuth {
        var urlCredentials: URLCredentials?
        var origin: String?
        var authorize: @Sendable (URL) -> HTTPHeaders

        func headers(for url: URL) -> HTTPHeaders {
            if let urlCredentials, let origin, HTTPAuth.origin(of: url) == origin {
                return ["Authorization": urlCredentials.basicHeader]
            }
            return authorize(url)
        }
    }

    private struct Obtained<T> {
        var value: T
        var fromCache = false
        var warning: String?
    }

    /// Reads a document and validates it with `decode`; for a remote one, falls
    /// back to the cached copy on any failure and caches a good fresh copy.
    private func obtain<T>(_ kind: ConfigCache.Kind, at location: ConfigLocation, auth: FetchAuth,
                           decode: (JSONValue, String) throws(ConfigError) -> T) throws(ConfigError) -> Obtained<T> {
        let source = location.description
        let url: URL
        switch location {
        case .file(let path): return Obtained(value: try decode(JSONText.parse(Files.read(path), source: source), source))
        case .remote(let remote): url = remote
        }
        let cache = ConfigCache(directory: cacheDirectory)
        let fetched: (value: T, json: JSONValue)
        do {
            let json = try JSONText.parse(fetch(url, headers: auth.headers(for: url)), source: source)
            fetched = (try decode(json, source), json)
        } catch let failure {
            guard let cached = cache.read(kind, url: url) else { throw failure }
            let value: T
            do {
                value = try decode(cached.content, "\(source) (cached copy)")
            } catch {
                throw ConfigError("\(failure.description); the cached copy is unusable too: \(error.description)")
            }
            return Obtained(value: value, fromCache: true,
                            warning: "\(failure.description); using the copy cached at \(cached.savedAt)")
        }
        do {
            try cache.write(kind, url: url, content: fetched.json)
            return Obtained(value: fetched.value)
        } catch {
            return Obtained(value: fetched.value, warning: "could not update the offline copy: \(error.description)")
        }
    }

    private func fetch(_ url: URL, headers extra: HTTPHeaders, accept: String = "application/json") throws(ConfigError) -> Data {
        let shown = HTTPError.displayURL(url.absoluteString)
        let response: HTTPResponse
        var headers: HTTPHeaders = ["Accept": accept]
        for field in extra { headers[field.name] = field.value }
        // Blocking: configs load synchronously, before any sync work starts.
        do throws(HTTPError) {
            response = try transport.sendBlocking(HTTPRequest(url: url, headers: headers, timeouts: timeouts))
        } catch {
            throw ConfigError(error.description)
        }
        // The status alone: an error page's HTML would not help on one line.
        guard response.isSuccess else {
            var error = ConfigError(source: shown, "the server answered HTTP \(response.status)" + (response.status == 401
                ? " (no credentials it accepts: put user:password@ in the URL or `fprint login` to its gateway)" : ""))
            error.notFound = response.status == 404
            throw error
        }
        return response.body
    }
}

/// The offline copies of remote documents: one file per kind and URL holding
/// `{"source", "savedAt", "content"}`, so a copy is only ever used for the
/// URL it was fetched from.
struct ConfigCache {
    enum Kind: String { case appConfig = "app-config", scenarios, environment, beacons, picture }

    let directory: String

    func path(_ kind: Kind, url: URL) -> String {
        "\(directory)/\(kind.rawValue)-\(Self.fnv1a(url.absoluteString)).json"
    }

    /// The cached copy, or nil if there is none usable for this URL.
    func read(_ kind: Kind, url: URL) -> (content: JSONValue, savedAt: String)? {
        guard let data = FileManager.default.contents(atPath: path(kind, url: url)),
              let envelope = try? CanonicalJSON.parse(data),
              envelope["source"]?.stringValue == url.absoluteString,
              let content = envelope["content"]
        else { return nil }
        return (content, envelope["savedAt"]?.stringValue ?? "an unknown time")
    }

    func write(_ kind: Kind, url: URL, content: JSONValue) throws(ConfigError) {
        let envelope: JSONValue = [
            "source": .string(url.absoluteString),
            "savedAt": .string(ISOTime.string(Date())),
            "content": content,
        ]
        try Files.writeAtomically(CanonicalJSON.data(envelope), to: path(kind, url: url))
    }

    /// A stable file-name hash of the URL (Swift's `hashValue` is seeded per process).
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
