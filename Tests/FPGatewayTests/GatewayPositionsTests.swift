import FPCore
import FPGateway
import FPStore
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// `/_positions`: live positions from `fprint track --publish`, in memory only.
@Suite struct GatewayPositionsTests {
    static func fix(_ map: String, _ x: Double, _ y: Double, time: String = "2026-11-25T17:00:00.000Z") -> JSONValue {
        ["map": .string(map), "x": .double(x), "y": .double(y), "accuracy_m": 1.5, "time": .string(time)]
    }

    @Test func usersPublishEveryoneReadsAndNothingIsStored() async throws {
        let f = try GatewayFixture()
        let viewer = f.authority.issue(user: "vera", role: .viewer, ttlSeconds: 3600)
        try await f.app.test(.router) { client in
            let first = try await client.call(.post, "/_positions", token: f.token("alice"),
                                              body: ["device": "tab-1", "positions": [Self.fix("J1NP", 10, 20), Self.fix("J1NP", 11, 21)]])
            #expect(first.status == .accepted)
            #expect(first.json["accepted"] == 2)
            _ = try await client.call(.post, "/_positions", token: f.token("bob"), body: ["positions": [Self.fix("J2NP", 5, 6)]])
            // Each publisher's latest, newest first; a map narrows it.
            let all = try await client.call(.get, "/_positions", token: viewer)
            #expect(all.status == .ok)
            let publishers = all.json["positions"]?.arrayValue?.compactMap { $0["publisher"]?.stringValue }
            #expect(publishers == ["bob", "alice/tab-1"])
            let j1 = try await client.call(.get, "/_positions?map=J1NP", token: viewer).json["positions"]?.arrayValue ?? []
            #expect(j1.count == 1)
            #expect(j1.first?["x"]?.doubleValue == 11 && j1.first?["y"]?.doubleValue == 21)
            #expect(j1.first?["accuracy_m"]?.doubleValue == 1.5)
            // Viewers are refused before their body is read (this one is not JSON).
            #expect(try await client.call(.post, "/_positions", token: viewer, raw: "{not json").status == .forbidden)
            #expect(try await client.call(.post, "/_positions", token: nil, body: ["positions": [Self.fix("J1NP", 1, 1)]]).status == .unauthorized)
            #expect(try await client.call(.get, "/_positions", token: nil).status == .unauthorized)
        }
        // Positions are no measurements: the store did not change.
        #expect(try f.store.lastSequence() == 0)
    }

    @Test func badBodiesAreRefusedWithTheMemberAtFault() async throws {
        let f = try GatewayFixture()
        let cases: [(JSONValue, String)] = [
            (["positions": []], "positions: an array of 1–100"),
            (["positions": .array(Array(repeating: Self.fix("J1NP", 1, 1), count: 101))], "positions: an array of 1–100"),
            (["positions": [["map": "J1NP", "x": "a", "y": 1, "time": "2026-11-25T17:00:00Z"]]], "positions[0]: x and y"),
            (["positions": [Self.fix("J1NP", 1, 1), ["map": "", "x": 1, "y": 1, "time": "2026-11-25T17:00:00Z"]]], "positions[1].map"),
            (["positions": [["map": "J1NP", "x": 1, "y": 1, "time": "yesterday"]]], "positions[0].time"),
            (["positions": [["map": "J1NP", "x": 1, "y": 1, "accuracy_m": -1, "time": "2026-11-25T17:00:00Z"]]], "positions[0].accuracy_m"),
            (["device": "a b", "positions": [Self.fix("J1NP", 1, 1)]], "device: 1–64"),
            ([1, 2], "the body must be a JSON object"),
        ]
        try await f.app.test(.router) { client in
            for (body, reason) in cases {
                let answer = try await client.call(.post, "/_positions", token: f.token("alice"), body: body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.json["reason"]?.stringValue?.hasPrefix(reason) == true, "\(answer.json)")
            }
            // A body past the positions' own limit is refused on its declared length.
            let big = String(repeating: " ", count: 65 << 10)
            #expect(try await client.call(.post, "/_positions", token: f.token("alice"), raw: big).status == .contentTooLarge)
            #expect(try await client.call(.get, "/_positions", token: f.token("alice")).json["positions"]?.arrayValue?.isEmpty == true)
        }
    }
}
