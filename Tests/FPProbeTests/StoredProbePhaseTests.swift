import FPCore
import FPProbe
import Foundation
import Testing

/// What a stored phase's figures rest on: the signed result, never the copy beside it.
@Suite struct StoredProbePhaseTests {
    let signer = ProbeSigner(gatewaySecret: Data("0123456789abcdef0123456789abcdef".utf8))
    let udpResult: JSONValue = ["phase": "udp", "user": "alice", "client": "10.0.0.2", "nonce": "5f", "sent": 200,
                                "lossUpPercent": 5.25, "lossDownPercent": 1.5, "rttMs": ["median": 80.125, "count": 190]]

    /// A phase as the client writes it (the figures copied beside the signed result), after a text round trip.
    func stored(_ result: JSONValue, name: String = "udp", edit: (inout JSONValue) -> Void = { _ in }) throws -> StoredProbePhase {
        let figures = JSONObject(members: (result.objectValue ?? JSONObject()).members.filter {
            ["sent", "lossUpPercent", "lossDownPercent", "rttMs"].contains($0.key)
        })
        var json = ProbePhase(name: name, status: .ok, signed: try signer.sign(result), figures: figures).json
        edit(&json)
        return StoredProbePhase(try CanonicalJSON.parse(CanonicalJSON.data(json)))
    }

    @Test func aPhaseAsTheClientWroteItIsSigned() throws {
        let phase = try stored(udpResult)
        #expect(phase.standing == .signed)
        #expect(JSONValue.object(phase.figures)["lossDownPercent"]?.doubleValue == 1.5)
        #expect(phase.figures["user"] == nil, "identifying keys are not figures")
    }

    @Test func anEditedCopyIsNamedAndTheSignedFiguresAreShown() throws {
        let phase = try stored(udpResult) { $0["lossDownPercent"] = 0 }
        #expect(phase.standing == .unverified("lossDownPercent differs from the signed result"))
        #expect(JSONValue.object(phase.figures)["lossDownPercent"]?.doubleValue == 1.5)
    }

    @Test func aFigureAddedOrDroppedBesideTheSignedResultCounts() throws {
        let added = try stored(udpResult) { $0["jitterUpMs"] = 0.5 }
        #expect(added.standing == .unverified("jitterUpMs differs from the signed result"))
        #expect(added.figures["jitterUpMs"] == nil)
        let dropped = try stored(udpResult) {
            $0["rttMs"] = nil
            $0["sent"] = nil
        }
        #expect(dropped.standing == .unverified("rttMs, sent differ from the signed result"))
    }

    /// Another phase's genuine signed result, with a matching copy, is not this phase's.
    @Test func aSignedResultOfAnotherPhaseDoesNotCount() throws {
        let phase = try stored(udpResult, name: "down")
        #expect(phase.standing == .unverified("its signed result is of the udp phase"))
    }

    @Test func figuresWithoutASignatureAreUnverifiedExceptThePing() throws {
        let down = StoredProbePhase(["phase": "down", "status": "ok", "statusCode": 0, "bitsPerSecond": 987_654_321])
        #expect(down.standing == .unverified("no signature"))
        #expect(down.figures["bitsPerSecond"]?.intValue == 987_654_321)
        let ping = StoredProbePhase(["phase": "ping", "status": "ok", "statusCode": 0, "sent": 5, "received": 5, "lossPercent": 0])
        #expect(ping.standing == .clientMeasured)
        let okWithoutFigures = StoredProbePhase(["phase": "up", "status": "ok", "statusCode": 0])
        #expect(okWithoutFigures.standing == .unverified("no signature"))
        let failed = StoredProbePhase(["phase": "up", "status": "unreachable", "statusCode": 1, "reason": "cannot connect"])
        #expect(failed.standing == .noFigures)
    }

    @Test func aSignedBlockWithoutItsSignatureIsUnverified() throws {
        let phase = try stored(udpResult) { $0["signed"]?["signature"] = nil }
        #expect(phase.standing == .unverified("its signed block is not {result, signature}"))
    }

    @Test func aBareSignedResultHasItsFigures() throws {
        let phase = StoredProbePhase(signedResult: try signer.sign(udpResult))
        #expect(phase.name == "udp" && phase.standing == .signed)
        #expect(phase.figures["sent"]?.intValue == 200)
    }
}
