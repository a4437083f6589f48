import Foundation
import Testing

/// `list --owner/--device/--os` and the map's location name.
@Suite struct ListFilterCLITests {
    static func measurement(_ minute: Int, owner: String, device: String, os: String, osId: String) -> [String: Any] {
        var d = doc(minute, 0, rssi: -50, minute: minute)
        d["couchbase_sync_gateway_id"] = owner
        d["deviceId"] = device
        d["osName"] = os
        d["osId"] = osId
        return d
    }

    @Test func ownerDeviceAndOSFiltersCombine() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, [
            ("a1", Self.measurement(1, owner: "alice", device: "pixel-7", os: "Android", osId: "14")),
            ("a2", Self.measurement(2, owner: "alice", device: "laptop-3", os: "Linux", osId: "6.8")),
            ("b1", Self.measurement(3, owner: "bob", device: "pixel-7", os: "Android", osId: "13")),
            ("b2", Self.measurement(4, owner: "bob", device: "iphone", os: "iOS", osId: "10.3.1")),
        ])
        func ids(_ args: [String]) async throws -> Set<String> {
            let r = try await fp.run(["list", "--json"] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return Set(try r.lines.map { try fp.json($0)["id"] as? String ?? "" })
        }
        #expect(try await ids(["--owner", "alice"]) == ["a1", "a2"])
        #expect(try await ids(["--device", "pixel-7"]) == ["a1", "b1"])
        #expect(try await ids(["--os", "android"]) == ["a1", "b1"])
        #expect(try await ids(["--os", "Android 13"]) == ["b1"])
        #expect(try await ids(["--owner", "bob", "--device", "pixel-7"]) == ["b1"])
        #expect(try await ids(["--owner", "alice", "--os", "linux", "--since", "2026-11-01T10:02:00Z"]) == ["a2"])
        #expect(try await ids(["--owner", "carol"]) == [])
        let limited = try await fp.run(["list", "--json", "--owner", "bob", "--limit", "1"])
        #expect(limited.lines.count == 1 && limited.stdout.contains("\"b2\""), "\(limited.stdout)")
    }

    @Test func listNamesTheMapsLocation() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, EvalCLITests.caseB)
        let config = FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path
        let r = try await fp.run(["list", "--config", config])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("J1NP: Univerzita Hradec Králové"), "\(r.stdout)")
        #expect(r.lines.allSatisfy { $0.count <= 80 }, "\(r.stdout)")
    }
}
