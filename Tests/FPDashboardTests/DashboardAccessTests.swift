import FPCore
import FPHex
@testable import FPDashboard
import FPGateway
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// Routing beside CouchDB, logins, cookies, CSRF and roles.
@Suite struct DashboardAccessTests {
    @Test func couchPeersStillGetTheWelcomeAndBrowsersAreRedirected() async throws {
        let f = try DashboardFixture()
        let token = f.authority.issue(user: "alice", role: .user, ttlSeconds: 3600)
        try await f.app.test(.router) { client in
            var headers: HTTPFields = [.accept: "application/json", .authorization: "Bearer \(token)"]
            let json = try await client.execute(uri: "/", method: .get, headers: headers) { $0 }
            #expect(json.status == .ok)
            #expect(json.headers[.contentType] == "application/json")
            #expect(String(buffer: json.body).contains("\"couchdb\":\"Welcome\""))
            // A replicator without Accept is not a browser either.
            headers[.accept] = nil
            #expect(try await client.execute(uri: "/", method: .get, headers: headers) { $0.status } == .ok)
            #expect(try await client.page(.get, "/", accept: nil).status == .unauthorized)
            let browser = try await client.page(.get, "/", accept: "text/html,application/xhtml+xml,*/*;q=0.8")
            #expect(browser.status == .seeOther)
            #expect(browser.headers[.location] == "/_dashboard/")
            // Pages need a login; the login page itself does not.
            let index = try await client.page(.get, "/_dashboard/")
            #expect(index.status == .seeOther)
            #expect(index.headers[.location] == "/_dashboard/login?next=%2F_dashboard%2F")
            let login = try await client.page(.get, "/_dashboard/login")
            #expect(login.status == .ok)
            #expect(login.text.contains("type=\"password\""))
        }
    }

    @Test func goodLoginSetsAStrictHttpOnlyCookieThatOpensThePages() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let login = try await client.page(.post, "/_dashboard/login", form: "name=carol&password=s3cret")
            #expect(login.status == .seeOther)
            #expect(login.headers[.location] == "/_dashboard/")
            let cookie = try #require(login.headers[.setCookie])
            #expect(cookie.hasPrefix("AuthSession=ey"))
            for flag in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] { #expect(cookie.contains(flag)) }
            #expect(!login.text.contains("s3cret"))
            let session = String(cookie.prefix { $0 != ";" })
            let index = try await client.page(.get, "/_dashboard/", cookie: session)
            #expect(index.status == .ok)
            #expect(index.text.contains("carol (user)"))
            // The same cookie is the gateway's own session.
            let couch = try await client.page(.get, "/_session", cookie: session, accept: "application/json")
            #expect(couch.text.contains("\"name\":\"carol\""))
            let logout = try await client.page(.post, "/_dashboard/logout", cookie: session, form: "")
            #expect(logout.status == .seeOther)
            #expect(logout.headers[.setCookie]?.hasPrefix("AuthSession=;") == true)
        }
    }

    /// A link to a page, followed before logging in, leads there after it; never to another site.
    @Test func theLoginLeadsToThePageAskedFor() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let asked = try await client.page(.get, "/_dashboard/maps/J1NP/errors?x=1")
            let login = try #require(asked.headers[.location])
            #expect(login == "/_dashboard/login?next=%2F_dashboard%2Fmaps%2FJ1NP%2Ferrors%3Fx%3D1")
            let form = try await client.page(.get, login)
            #expect(form.text.contains("name=\"next\" value=\"/_dashboard/maps/J1NP/errors?x=1\""), "\(form.text)")
            let done = try await client.page(.post, "/_dashboard/login",
                                             form: "name=carol&password=s3cret&next=%2F_dashboard%2Fmaps%2FJ1NP%2Ferrors%3Fx%3D1")
            #expect(done.status == .seeOther && done.headers[.location] == "/_dashboard/maps/J1NP/errors?x=1")
            for next in ["https://evil.example/", "//evil.example/_dashboard/", "/_dashboard//evil.example", "/_dashboard/\\evil",
                         "/_dashboard/logout", "/elsewhere", "/_dashboard/%0d%0aSet-Cookie:x"] {
                let form = "name=carol&password=s3cret&next=" + PercentEncoding.encode(next.removingPercentEncoding ?? next)
                let answer = try await client.page(.post, "/_dashboard/login", form: form)
                #expect(answer.headers[.location] == "/_dashboard/", "\(next)")
            }
        }
    }

    @Test func aPastedTokenLogsIn() async throws {
        let f = try DashboardFixture()
        let token = f.authority.issue(user: "vera", role: .viewer, ttlSeconds: 3600)
        try await f.app.test(.router) { client in
            let login = try await client.page(.post, "/_dashboard/login", form: "name=&password=\(token)")
            #expect(login.status == .seeOther)
            // A session of its own, not the token itself (logging out must not end the token).
            let cookie = try #require(login.headers[.setCookie])
            #expect(cookie.hasPrefix("AuthSession=") && !cookie.hasPrefix("AuthSession=\(token);"), "\(cookie)")
            let forged = try await client.page(.post, "/_dashboard/login", form: "name=&password=\(token.dropLast(2))xx")
            #expect(forged.status == .unauthorized)
        }
    }

    @Test func badLoginsGetA401PageAndAreThrottled() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let bad = try await client.page(.post, "/_dashboard/login", form: "name=carol&password=guess")
            #expect(bad.status == .unauthorized)
            #expect(bad.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(bad.text.contains("Wrong name, password or token."))
            #expect(bad.headers[.setCookie] == nil)
            #expect(!bad.text.contains("guess"))
            // Failures make later attempts wait; queued ones past the throttle's horizon are refused.
            for n in 0..<5 {
                _ = try await client.page(.post, "/_dashboard/login", form: "name=carol&password=guess\(n)")
            }
            let refused: Page? = await withTaskGroup(of: Page?.self, returning: Page?.self) { group in
                for n in 0..<16 {
                    group.addTask { try? await client.page(.post, "/_dashboard/login", form: "name=carol&password=again\(n)") }
                }
                for await page in group {
                    if let page, page.status == .tooManyRequests {
                        group.cancelAll()
                        return page
                    }
                }
                return nil
            }
            let page = try #require(refused)
            #expect(page.text.contains("Too many failed logins"))
            #expect(Int(page.headers[.retryAfter] ?? "") ?? 0 > 0)
        }
    }

    @Test func formsFromElsewhereAreRefusedBeforeTheirBodyIsRead() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let foreign = try await client.page(.post, "/_dashboard/login", form: "name=carol&password=s3cret",
                                                origin: "http://evil.example")
            #expect(foreign.status == .forbidden)
            #expect(foreign.headers[.setCookie] == nil)
            let none = try await client.page(.post, "/_dashboard/login", form: "name=carol&password=s3cret", origin: nil)
            #expect(none.status == .forbidden)
            let huge = try await client.page(.post, "/_dashboard/login",
                                             form: "name=carol&password=" + String(repeating: "x", count: 10_000))
            #expect(huge.status == .contentTooLarge)
        }
    }

    @Test func rolesDecideTheAdminAndUploadPages() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let viewer = f.cookie("vera", role: .viewer)
            let admin = try await client.page(.get, "/_dashboard/admin", cookie: viewer)
            #expect(admin.status == .forbidden)
            #expect(admin.text.contains("admins only"))
            #expect(!admin.text.contains("carol"))
            #expect(try await client.page(.get, "/_dashboard/mine", cookie: viewer).status == .forbidden)
            #expect(try await client.page(.get, "/_dashboard/maps/J1NP", cookie: viewer).status == .ok)
            #expect(try await client.page(.get, "/_dashboard/admin", cookie: f.cookie("carol", role: .user)).status == .forbidden)
            let root = try await client.page(.get, "/_dashboard/admin", cookie: f.cookie("root", role: .admin))
            #expect(root.status == .ok)
            for name in ["carol", "vera", "root", "alice"] { #expect(root.text.contains("<td>\(name)</td>")) }
            let mine = try await client.page(.get, "/_dashboard/mine", cookie: f.cookie("alice", role: .user))
            #expect(mine.status == .ok)
            #expect(mine.text.contains("<span id=\"mine-count\">2</span>"))
            #expect(mine.text.contains("static-a") && !mine.text.contains("walk-0"))
            // An expired or forged cookie is no session.
            let expired = "AuthSession=" + f.authority.issue(user: "root", role: .admin, ttlSeconds: -10)
            #expect(try await client.page(.get, "/_dashboard/admin", cookie: expired).status == .seeOther)
        }
    }
}
