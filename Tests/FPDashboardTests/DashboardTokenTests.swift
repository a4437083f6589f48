import FPCore
@testable import FPDashboard
import FPGateway
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import FPTestSupport
import Testing

/// The admin page's token form: an admin issues a token the gateway then
/// accepts; nobody else can, and no other site can make an admin's browser do it.
@Suite struct DashboardTokenTests {
    @Test func anAdminIssuesATokenTheGatewayAccepts() async throws {
        let f = try DashboardFixture()
        try f.seed()
        try await f.app.test(.router) { client in
            let root = f.cookie("root", role: .admin)
            let form = try await client.page(.get, "/_dashboard/admin", cookie: root)
            #expect(form.text.contains("action=\"/_dashboard/admin/tokens\""))
            let answer = try await client.page(.post, "/_dashboard/admin/tokens", cookie: root, form: "name=dora&role=viewer&days=7")
            #expect(answer.status == .ok)
            #expect(answer.headers[.cacheControl] == "no-store")
            let token = try #require(answer.text.firstMatch(of: /<pre id="issued-token">([A-Za-z0-9_.-]+)<\/pre>/)).1
            let claims = try f.authority.verify(String(token))
            #expect(claims.subject == "dora" && claims.role == .viewer)
            #expect(abs(claims.expiresAt - claims.issuedAt - 7 * 86400) <= 1)
            // The token opens the dashboard as dora, a viewer: no admin page.
            let dora = "AuthSession=" + token
            #expect(try await client.page(.get, "/_dashboard/", cookie: dora).text.contains("dora (viewer)"))
            #expect(try await client.page(.get, "/_dashboard/admin", cookie: dora).status == .forbidden)
        }
    }

    /// With a users file, a token for a name without a line is issued only
    /// when the admin ticks "token-only", and never for a name with one.
    @Test func aTokenForSomeoneWithoutALineIsIssuedOnlyAsTokenOnly() async throws {
        var fixture = try DashboardFixture()
        let usersFile = try makeTemporaryFolder("dashboard-token-only").appendingPathComponent("users").path
        FileManager.default.createFile(atPath: usersFile, contents: Data("carol:s3cret\nroot:toor:admin\n".utf8),
                                       attributes: [.posixPermissions: 0o600])
        fixture.config.usersFile = usersFile
        let f = fixture
        try await f.app.test(.router) { client in
            let root = f.cookie("root", role: .admin)
            let refused = try await client.page(.post, "/_dashboard/admin/tokens", cookie: root, form: "name=dora&role=viewer&days=7")
            #expect(refused.status == .badRequest && refused.text.contains("dora is not in the users file"), "\(refused.text)")
            #expect(!refused.text.contains("issued-token"))
            let ticked = try await client.page(.post, "/_dashboard/admin/tokens", cookie: root,
                                               form: "name=dora&role=viewer&days=7&tokenOnly=on")
            #expect(ticked.status == .ok && ticked.text.contains("A token-only viewer token for"), "\(ticked.text)")
            let token = try #require(ticked.text.firstMatch(of: /<pre id="issued-token">([A-Za-z0-9_.-]+)<\/pre>/)).1
            #expect(try f.authority.verify(String(token)).tokenOnly)
            #expect(try await client.page(.get, "/_dashboard/", cookie: "AuthSession=" + token).text.contains("dora (viewer)"))
            let listed = try await client.page(.post, "/_dashboard/admin/tokens", cookie: root,
                                               form: "name=carol&role=user&days=7&tokenOnly=on")
            #expect(listed.status == .badRequest && listed.text.contains("carol is in the users file"), "\(listed.text)")
        }
    }

    @Test(arguments: [
        ("name=&role=user&days=30", "Give a user name"),
        ("name=%01x&role=user&days=30", "Give a user name"),
        ("name=dora&role=root&days=30", "The role must be viewer, user or admin."),
        ("name=dora&role=user&days=0", "The lifetime must be 1 to 3650 days."),
        ("name=dora&role=user&days=many", "The lifetime must be 1 to 3650 days."),
    ])
    func aBadFormSaysWhyAndIssuesNothing(form: String, message: String) async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let answer = try await client.page(.post, "/_dashboard/admin/tokens", cookie: f.cookie("root", role: .admin), form: form)
            #expect(answer.status == .badRequest)
            #expect(answer.text.contains(message), "\(answer.text)")
            #expect(!answer.text.contains("issued-token"))
        }
    }

    @Test func onlyAnAdminsOwnPagesMayIssue() async throws {
        let f = try DashboardFixture()
        try await f.app.test(.router) { client in
            let form = "name=mallory&role=admin&days=30"
            for cookie in [f.cookie("vera", role: .viewer), f.cookie("carol", role: .user)] {
                let answer = try await client.page(.post, "/_dashboard/admin/tokens", cookie: cookie, form: form)
                #expect(answer.status == .forbidden && !answer.text.contains("issued-token"))
            }
            let root = f.cookie("root", role: .admin)
            for origin in ["http://evil.example", nil] {
                let answer = try await client.page(.post, "/_dashboard/admin/tokens", cookie: root, form: form, origin: origin)
                #expect(answer.status == .forbidden && !answer.text.contains("issued-token"), "\(origin ?? "no Origin")")
            }
            let anonymous = try await client.page(.post, "/_dashboard/admin/tokens", form: form)
            #expect(anonymous.status == .seeOther && !anonymous.text.contains("issued-token"))
        }
    }

    @Test func localModeHasNoSecretToSignWith() async throws {
        let f = try DashboardFixture()
        let app = Application(responder: LocalResponder(dashboard: LocalDashboard.make(store: f.store, options: .init())))
        try await app.test(.router) { client in
            let page = try await client.page(.get, "/_dashboard/admin")
            #expect(page.status == .notFound && !page.text.contains("action=\"/_dashboard/admin/tokens\""))
            let answer = try await client.page(.post, "/_dashboard/admin/tokens", form: "name=dora&role=user&days=1")
            #expect(answer.status == .forbidden && !answer.text.contains("issued-token"))
        }
    }
}
