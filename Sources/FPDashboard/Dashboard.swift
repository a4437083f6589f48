import FPAnalysis
import FPCore
import FPHex
import Foundation
import HTTPTypes
import Hummingbird

/// The web dashboard under `/_dashboard/`: served by `fprint gateway` (with
/// its logins) and by `fprint dashboard` (a local database on loopback, no
/// login). In this order: the path, the user (from the cookie alone), the
/// role, and only then a body, which only the login and logout forms have.
package struct Dashboard: Sendable {
    package struct Options: Sendable {
        /// Maps of the app config, by id.
        package var maps: [String: DashboardMap]
        /// Beacon registries by map, for the health alerts.
        package var registries: [String: BeaconRegistry]
        /// Mark the session cookie `Secure` (the gateway is reached over HTTPS).
        package var secureCookie: Bool
        /// Most event streams open at once, and per client address.
        package var maxStreams: Int
        package var maxStreamsPerClient: Int
        /// A stream ends after this long (the browser reconnects where it left off).
        package var streamLifetime: Duration
        /// A quiet stream sends a comment this often (proxies and idle timers keep it).
        package var heartbeat: Duration = .seconds(15)
        /// Most points a map page draws.
        package var maxMapPoints: Int
        /// Who measures for the Survey page (`fprint dashboard`); nil: no Survey page (the gateway).
        package var survey: (any SurveyDesk)?
        /// The alerts of the app config's rules over the store (`fprint alerts --history`); nil: no rules, no section.
        package var alerts: (@Sendable () async throws -> [FPAnalysis.Alert])?
        /// The app config's rules: the Network page draws the limits of its figure's.
        package var alertRules: [AlertRule]
        /// The Network page's periods (days from local midnight) and times are of this zone.
        package var timeZone: TimeZone

        package init(maps: [String: DashboardMap] = [:], registries: [String: BeaconRegistry] = [:],
                     secureCookie: Bool = false, maxStreams: Int = 64, maxStreamsPerClient: Int = 4,
                     streamLifetime: Duration = .seconds(300), maxMapPoints: Int = 5000, survey: (any SurveyDesk)? = nil,
                     alerts: (@Sendable () async throws -> [FPAnalysis.Alert])? = nil, alertRules: [AlertRule] = [],
                     timeZone: TimeZone = .current) {
            self.maps = maps
            self.registries = registries
            self.secureCookie = secureCookie
            self.maxStreams = maxStreams
            self.maxStreamsPerClient = maxStreamsPerClient
            self.streamLifetime = streamLifetime
            self.maxMapPoints = maxMapPoints
            self.survey = survey
            self.alerts = alerts
            self.alertRules = alertRules
            self.timeZone = timeZone
        }
    }

    /// Waits until the store's sequence passes `since` or `timeout` passes;
    /// false once the server is shutting down (streams then end).
    package typealias ChangeWait = @Sendable (_ since: Int64, _ timeout: Duration) async -> Bool

    let store: any ReplicableStore
    /// nil: local mode (`fprint dashboard`): everyone on loopback is the local admin.
    let access: (any DashboardAccess)?
    let options: Options
    let index: SurveyIndex
    let plots = PlotCache()
    let networkRuns = NetworkRunCache()
    let streams: StreamSlots
    let waitForChange: ChangeWait
    /// Positions published to the gateway (`fprint track --publish`); nil for `fprint dashboard`.
    let livePositions: LivePositions?
    /// The Survey page's token for its actions (CSRF): new each start, so a
    /// page of another site cannot know it and an old tab must be reloaded.
    let surveyToken = Dashboard.newSurveyToken()

    static let prefix = "/_dashboard"
    /// Largest login or logout form: read before anyone is known.
    static let formLimit = 4 << 10
    static let localUser = DashboardUser(name: "local", role: .admin)

    package init(store: any ReplicableStore, access: (any DashboardAccess)?, options: Options = Options(),
                 livePositions: LivePositions? = nil, waitForChange: @escaping ChangeWait) {
        self.store = store
        self.access = access
        // A map page draws the plan's picture under three plots: they link
        // to it, and it is sent once (`floor-plans/<map>`), not three times inline.
        var options = options
        for id in options.maps.keys { options.maps[id]?.floorPlan?.link = Self.prefix + "/floor-plans/" + Pages.link(id) }
        self.options = options
        self.index = SurveyIndex(store: store)
        self.streams = StreamSlots(total: options.maxStreams, perClient: options.maxStreamsPerClient)
        self.waitForChange = waitForChange
        self.livePositions = livePositions
    }

    /// Whether a request is the dashboard's: its paths, and `GET /` from a
    /// browser (CouchDB peers ask for `/` as JSON and keep getting the welcome).
    package static func handles(path: String, method: HTTPRequest.Method, accept: String?) -> Bool {
        if path == prefix || path.hasPrefix(prefix + "/") { return true }
        return path == "/" && (method == .get || method == .head) && (accept ?? "").lowercased().contains("text/html")
    }

    /// `closed` returns when the request's connection closes (a live view
    /// whose page was left frees its slot then, not at its next heartbeat).
    package func respond(to request: Request, client: String, closed: ConnectionClosed = .never) async -> Response {
        var request = request
        let path = request.uri.path
        let head = request.method == .head
        let method = head ? HTTPRequest.Method.get : request.method
        if path == "/" || path == Self.prefix { return Responses.redirect(Self.prefix + "/") }
        // Segments decoded one by one: a map id may hold any character.
        let rest = path.dropFirst(Self.prefix.count).split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        switch (method, rest.first) {
        case (.get, "style.css"): return Responses.asset(Assets.css, type: "text/css; charset=utf-8", head: head)
        case (.get, "app.js"): return Responses.asset(Assets.js, type: "text/javascript; charset=utf-8", head: head)
        case (.get, "survey.js"): return Responses.asset(SurveyScript.js, type: "text/javascript; charset=utf-8", head: head)
        case (.get, "login"):
            let next = Self.safeNext(Form.parse(request.uri.query ?? "")["next"])
            if access == nil || user(request) != nil { return Responses.redirect(next) }
            return loginPage(.ok, name: "", error: nil, next: next, head: head)
        case (.post, "login"):
            guard sameOrigin(request) else { return forbiddenOrigin() }
            return await login(&request, client: client)
        case (.post, "logout"):
            guard sameOrigin(request) else { return forbiddenOrigin() }
            // The session ends on the server: a copy of the cookie no longer opens anything.
            access?.logout(request.headers)
            return Responses.redirect(Self.prefix + "/login",
                                      cookie: Responses.sessionCookie("", maxAge: 0, secure: options.secureCookie))
        default: break
        }
        guard let user = user(request) else {
            if rest.first == "events" { return Responses.html(.unauthorized, "log in first\n") }
            // Back to the page asked for once logged in (a GET's address only: a form is not replayed).
            let asked = method == .get ? path + (request.uri.query.map { "?" + $0 } ?? "") : Self.prefix + "/"
            return Responses.redirect(Self.prefix + "/login?next=" + PercentEncoding.encode(asked))
        }
        // The admin page's forms (issue, revoke) are the POSTs past the login.
        let adminForm = method == .post && (rest == ["admin", "tokens"] || rest == ["admin", "revoke"])
        let surveyAction = method == .post && rest.first == "survey"
        guard method == .get || adminForm || surveyAction else {
            return Responses.message(.methodNotAllowed, heading: "Not allowed", text: "This page only answers GET.",
                                     user: user, canLogout: access != nil)
        }
        let query = Form.parse(request.uri.query ?? "")
        let pages = Pages(dashboard: self, user: user, head: head)
        do {
            if adminForm {
                guard sameOrigin(request) else { return forbiddenOrigin() }
                guard user.role == .admin else { return pages.forbidden("Only admins issue and revoke tokens.") }
                if rest[1] == "revoke" { return try await revokeCredential(&request, by: user, pages: pages) }
                return try await issueToken(&request, by: user, pages: pages)
            }
            switch (rest.first, rest.count) {
            case (nil, _): return try await pages.index()
            case ("maps", 2): return try await pages.map(rest[1], transmitter: query["tx"])
            case ("maps", 3) where rest[2] == "errors": return try await pages.errors(rest[1])
            case ("network", 2): return try await pages.network(rest[1], query: query)
            case ("floor-plans", 2): return pages.floorPlan(rest[1])
            case ("survey", _): return try await survey(rest, method: method, request: &request, pages: pages)
            case ("activity", 1): return try await pages.activity(by: query["by"] ?? "day")
            case ("mine", 1):
                guard user.role != .viewer else { return pages.forbidden("Only surveyors have uploads of their own.") }
                return try await pages.mine(page: query["page"])
            case ("admin", 1):
                guard access != nil else {
                    return Responses.message(.notFound, heading: "No admin page here",
                                             text: "fprint dashboard has no accounts or tokens: the Admin page is the gateway's (fprint gateway serve).",
                                             user: user, canLogout: false, head: head)
                }
                guard user.role == .admin else { return pages.forbidden("The admin page is for admins only.") }
                return try await pages.admin()
            case ("events", 1):
                return await events(map: query["map"] ?? "", since: request.headers[.lastEventID] ?? query["since"],
                                    client: client, head: head, closed: closed)
            default:
                return Responses.message(.notFound, heading: "Not found", text: "There is no such dashboard page.",
                                         user: user, canLogout: access != nil, head: head)
            }
        } catch {
            return Responses.message(.internalServerError, heading: "Cannot read the survey", text: "\(error)",
                                     user: user, canLogout: access != nil, head: head)
        }
    }

    /// Where a login leads: a page of this dashboard, never another site
    /// (`//evil.example`, `/\evil`) nor the login and logout themselves.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix(prefix + "/"), !next.contains("//"), !next.contains("\\"),
              !next.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              !next.hasPrefix(prefix + "/login"), !next.hasPrefix(prefix + "/logout") else { return prefix + "/" }
        return next
    }

    /// The user of the session cookie, or the local admin in local mode.
    func user(_ request: Request) -> DashboardUser? {
        guard let access else { return Self.localUser }
        return access.sessionUser(request.headers)
    }

    /// A form must come from a page of this server: browsers send `Origin`
    /// (or at least `Referer`) with a POST, and another site cannot forge
    /// them. With the SameSite=Strict cookie this is the CSRF defence.
    func sameOrigin(_ request: Request) -> Bool {
        guard let host = request.head.authority else { return false }
        let allowed = ["http://" + host, "https://" + host]
        if let origin = request.headers[.origin] { return allowed.contains(origin) }
        if let referer = request.headers[.referer] { return allowed.contains { referer == $0 || referer.hasPrefix($0 + "/") } }
        return false
    }

    func forbiddenOrigin() -> Response {
        Responses.message(.forbidden, heading: "Forbidden", text: "The form did not come from this server.", user: nil,
                          canLogout: false)
    }

    func loginPage(_ status: HTTPResponse.Status, name: String, error: String?, next: String = prefix + "/",
                   head: Bool = false) -> Response {
        var context: [String: Any] = ["name": name, "next": next]
        if let error { context["error"] = error }
        return Responses.page(status, title: "Log in", user: nil, canLogout: false,
                              content: Templates.render("login", context), head: head)
    }

    private func login(_ request: inout Request, client: String) async -> Response {
        guard let access else { return Responses.redirect(Self.prefix + "/") }
        guard let form = await Form.read(&request, limit: Self.formLimit) else {
            return loginPage(.contentTooLarge, name: "", error: "The form is too large.")
        }
        let name = form["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let next = Self.safeNext(form["next"])
        guard let password = form["password"], !password.isEmpty else {
            return loginPage(.unauthorized, name: name, error: "Give a name and password, or paste a token.", next: next)
        }
        do throws(LoginRefusal) {
            let session = try await access.login(name: name, password: password, client: client)
            return Responses.redirect(next, cookie: Responses.sessionCookie(
                session.token, maxAge: session.maxAge, secure: options.secureCookie))
        } catch {
            guard case .throttled(let seconds) = error else {
                return loginPage(.unauthorized, name: name, error: "Wrong name, password or token.", next: next)
            }
            var response = loginPage(.tooManyRequests, name: name,
                                     error: "Too many failed logins: try again in \(seconds) s.", next: next)
            response.headers[.retryAfter] = String(seconds)
            return response
        }
    }
}
