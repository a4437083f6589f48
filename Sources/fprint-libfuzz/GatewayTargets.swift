#if FUZZ_GATEWAY
@testable import FPCLI
import FPConfig
import FPCore
@testable import FPGateway
import Foundation
import HTTPTypes

// What `fprint gateway` reads of a request before any handler runs, and the
// beacon sheets `fprint beacons import` takes. Internal parsers, reached with
// @testable: only in the build with FPRINT_LIBFUZZ=gateway, which enables
// testing (Tests/fuzz/run.sh; FPGateway and FPCLI triple that build's CPU).

/// A fixed secret: tokens are checked as the gateway checks them (signature,
/// then claims), whatever bytes they hold.
private let authority = TokenAuthority(secret: Data("fuzz-secret-of-32-bytes-exactly!".utf8))
private let proxies = try! TrustedProxies(["10.0.0.0/8", "::1"])
private let lab = MapInfo(id: "LAB1", location: "fuzz", description: "fuzz", mapURL: "lab.png",
                          extent: MapExtent(width: 2000, height: 1000))

let gatewayTargets: [FuzzTarget] = [
    FuzzTarget(name: "gateway-request") { bytes in
        // Pieces: the path, the query string, then header lines (`Name: value`).
        let p = pieces(bytes, 3)
        _ = try? GatewayResponder.segments(text(p[0]))
        let query = FormBody.parse(text(p[1]))
        _ = try? CouchRequest(method: .get, segments: [], query: query).revisionQuery()
        var headers = HTTPFields()
        for line in text(p[2]).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
            headers.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        _ = proxies.client(peer: "10.1.2.3", headers: headers)
        let own = CrossSite.ownOrigins(publicURL: query["public"], host: headers[HTTPField.Name("Host")!])
        _ = CrossSite.isForeign(headers, own: own)
        _ = CrossSite.isSameOriginOrNoBrowser(headers, own: own)
        _ = JSONContentType.mediaType(headers)
        if let token = Authenticator.bearerToken(headers) { _ = try? authority.verify(token) }
        if let cookie = Authenticator.sessionCookie(headers) { _ = try? authority.verify(cookie) }
        if let basic = headers[.authorization], basic.hasPrefix("Basic ") { _ = Authenticator.basicCredentials(basic) }
    },
    FuzzTarget(name: "beacon-sheet") { bytes in
        // A deployed-beacon spreadsheet, in map units and in metres.
        let sheet = text(bytes)
        _ = try? BeaconSheet(text: sheet, file: "fuzz.csv", map: lab, metres: false, origin: nil)
        _ = try? BeaconSheet(text: sheet, file: "fuzz.csv", map: lab, metres: true, origin: MapPoint(x: 10, y: 20))
    },
]
#else
let gatewayTargets: [FuzzTarget] = []
#endif
