import FPCore
import FPTestSupport
import Foundation
import Testing

/// Bytes a user chose (a floor-plan picture, an attachment, a file beside
/// the app config) are served so that a browser never runs them as a page
/// of the gateway: no script, a sandbox, no type sniffing. The real binary;
/// `Tests/browser/user_bytes_test.py` shows the same in Chromium. Before, a
/// floor plan went out with the dashboard's own policy (`script-src 'self'`),
/// so an SVG plan could run any script uploaded as an attachment.
@Suite struct GatewayUserBytesTests {
    /// A plan that would run a user's attachment, and its own inline script.
    static let evilPlan = """
        <svg xmlns="http://www.w3.org/2000/svg" width="1200" height="700" viewBox="0 0 1200 700">
          <rect x="0" y="0" width="1200" height="700" fill="#ffffff"/>
          <rect x="40" y="40" width="1120" height="620" fill="none" stroke="#37474f" stroke-width="8"/>
          <script href="/fprint/evildoc/evil.js"/>
          <script>document.title = "inline script ran"</script>
        </svg>
        """

    @Test func plansAttachmentsAndConfigFilesCannotRunAsPages() async throws {
        let s = try ClientSyncCLITests.Setup(users: "root:admin-pass:admin\nalice:alice-pass\n")
        let plan = s.runner.home.appendingPathComponent("evil.svg")
        try Self.evilPlan.write(to: plan, atomically: true, encoding: .utf8)
        let added = try await s.runner.run(["map", "add", "EVIL", "--image", plan.path, "--floor", "1",
                                            "--calibrate", "100,100 1100,100 25m", "--outline", "40,40 1160,40 1160,660 40,660"])
        #expect(added.status == 0, "\(added.stderr)")
        let gateway = try await s.gateway()
        defer { gateway.kill9() }
        func ask(_ method: String, _ path: String, _ headers: [String], body: String = "") async throws -> RawAnswer {
            try await RawAnswer.ask(port: gateway.port, method, path, headers, body: body, host: "127.0.0.1:\(gateway.port)",
                                    timeout: 120)
        }
        func expectUntrusted(_ answer: RawAnswer, _ what: String, type: String) {
            #expect(answer.status == 200, "\(what): \(answer.text.prefix(200))")
            #expect(answer.headers["content-type"] == type, "\(what): \(answer.headers)")
            let policy = answer.headers["content-security-policy"] ?? ""
            #expect(policy.contains("default-src 'none'") && policy.contains("sandbox") && !policy.contains("script-src"),
                    "\(what) is served with the policy \(policy)")
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(what): \(answer.headers)")
        }

        // The admin's session, as the dashboard's login makes it.
        let login = try await ask("POST", "/_session", ["Content-Type: application/json"],
                                  body: #"{"name":"root","password":"admin-pass"}"#)
        let cookie = try #require(login.headers["set-cookie"]?.split(separator: ";").first.map(String.init), "\(login.headers)")
        expectUntrusted(try await ask("GET", "/_dashboard/floor-plans/EVIL", ["Cookie: \(cookie)"]), "the dashboard's floor plan",
                        type: "image/svg+xml")
        // The map page still draws the plan, by its link.
        let page = try await ask("GET", "/_dashboard/maps/EVIL", ["Cookie: \(cookie)"])
        #expect(page.status == 200 && page.text.contains(#"href="/_dashboard/floor-plans/EVIL""#), "\(page.text.prefix(300))")
        let basic = { (user: String, password: String) in "Authorization: Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
        expectUntrusted(try await ask("GET", "/config/plans/EVIL.svg", [basic("alice", "alice-pass")]), "the served config's plan",
                        type: "application/octet-stream")

        // A user's script, uploaded as an attachment of their own document.
        let alice = basic("alice", "alice-pass")
        let made = try await ask("PUT", "/fprint/evildoc", [alice, "Content-Type: application/json"],
                                 body: #"{"couchbase_sync_gateway_id":"alice"}"#)
        let rev = try #require(try CanonicalJSON.parse(made.text)["rev"]?.stringValue, "\(made.text)")
        let uploaded = try await ask("PUT", "/fprint/evildoc/evil.js?rev=\(rev)", [alice, "Content-Type: text/javascript"],
                                     body: #"document.title = "attachment ran""#)
        #expect(uploaded.status == 201, "\(uploaded.text)")
        expectUntrusted(try await ask("GET", "/fprint/evildoc/evil.js", [basic("root", "admin-pass")]), "an attachment",
                        type: "text/javascript")
    }
}
