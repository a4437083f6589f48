import FPCore
@testable import FPDashboard
import FPGateway
import FPStore
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport

/// A gateway over an in-memory store seeded with a small survey, and the
/// browser's side of the dashboard: cookies, forms with an Origin, HTML.
struct DashboardFixture {
    let store: SQLiteDocumentStore
    let authority = TokenAuthority(secret: Data("dashboard-test-secret-dashboard!".utf8))
    var config: GatewayConfig

    init() throws {
        store = try SQLiteDocumentStore.inMemory()
        let users = try BasicUsers(fileText: "carol:s3cret\nvera:look:viewer\nroot:toor:admin\n")
        config = GatewayConfig(tokens: authority, users: users)
        config.dashboardMaps = ["J1NP": DashboardMap(
            id: "J1NP", description: "first floor", metersPerUnit: 45.0 / 2250, width: 2500, height: 3000,
            outline: [MapPoint(x: 0, y: 0), MapPoint(x: 2500, y: 0), MapPoint(x: 2500, y: 3000), MapPoint(x: 0, y: 3000)])]
    }

    var app: some ApplicationProtocol { get throws { try buildGatewayApplication(store: store, config: config) } }

    func cookie(_ user: String, role: GatewayRole) -> String {
        "AuthSession=" + authority.issue(user: user, role: role, ttlSeconds: 3600)
    }

    /// A measurement at (x, y) on `map`, heard by two beacons, signed by `owner`.
    static func measurement(map: String = "J1NP", x: Int, y: Int, owner: String, session: String? = nil, seq: Int? = nil,
                            createdAt: String = "2026-11-20T10:00:00.000Z") -> JSONValue {
        var o: JSONObject = [
            "level": .string(map), "x": .int(Int64(x)), "y": .int(Int64(y)), "createdAt": .string(createdAt),
            "couchbase_sync_gateway_id": .string(owner), "mode": session == nil ? "static" : "walk",
            "bleScans": [["address": "C0:C4:42:69:DA:1C", "rssi": .int(Int64(-60 - x / 100)), "time": 10],
                         ["address": "C3:9F:C5:AF:D7:60", "rssi": -80, "time": 20]],
            "wifiScans": [],
        ]
        if let session { o["sessionId"] = .string(session) }
        if let seq { o["seq"] = .int(Int64(seq)) }
        return .object(o)
    }

    /// Five documents on J1NP (a walk of three by carol, two static by alice) and one on J2NP.
    func seed() throws {
        var docs: [NewDocument] = []
        for i in 0..<3 {
            docs.append(NewDocument(id: "walk-\(i)", body: Self.measurement(x: 200 + 300 * i, y: 500, owner: "carol",
                                                                          session: "s1", seq: i + 1)))
        }
        docs.append(NewDocument(id: "static-a", body: Self.measurement(x: 1500, y: 1500, owner: "alice",
                                                                       createdAt: "2026-11-24T09:00:00.000Z")))
        docs.append(NewDocument(id: "static-b", body: Self.measurement(x: 1800, y: 2000, owner: "alice",
                                                                       createdAt: "2026-11-24T09:05:00.000Z")))
        docs.append(NewDocument(id: "other-map", body: Self.measurement(map: "J2NP", x: 100, y: 100, owner: "carol")))
        _ = try store.insert(docs)
    }
}

/// One answer as a browser sees it.
struct Page {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var text: String

    func count(_ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }
}

extension TestClientProtocol {
    func page(_ method: HTTPRequest.Method = .get, _ uri: String, cookie: String? = nil, accept: String? = "text/html",
              form: String? = nil, origin: String? = "http://localhost") async throws -> Page {
        var headers = HTTPFields()
        if let cookie { headers[.cookie] = cookie }
        if let accept { headers[.accept] = accept }
        if form != nil {
            headers[.contentType] = "application/x-www-form-urlencoded"
            if let origin { headers[.origin] = origin }
        }
        return try await execute(uri: uri, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) }) {
            Page(status: $0.status, headers: $0.headers, text: String(buffer: $0.body))
        }
    }
}
