import Foundation
import HTTPTypes

/// What keeps another site's page from acting with a user's cookie.
///
/// The `AuthSession` cookie is SameSite=Strict, so browsers do not send it
/// with another site's requests at all; this is the second line, for a
/// browser that ignores SameSite. A request that changes data and is
/// authenticated by that cookie must come from this gateway's own pages:
/// its `Origin` (or, without one, `Sec-Fetch-Site`, then `Referer`) names
/// this gateway. A request with none of these headers comes from no browser
/// (CouchDB's replicator logs in with a form and sends the cookie without
/// them) and a page of another site cannot make a browser leave them all out.
enum CrossSite {
    /// The origins this gateway is reached at: the public URL's, and the
    /// `Host` the request names, over http or https.
    static func ownOrigins(publicURL: String?, host: String?) -> Set<String> {
        var origins = Set<String>()
        if let publicURL, let origin = origin(of: publicURL) { origins.insert(origin) }
        if let host, !host.isEmpty { origins.formUnion(["http://" + host.lowercased(), "https://" + host.lowercased()]) }
        return origins
    }

    /// Whether a request comes from one of `own` origins, or from no browser.
    static func isSameOriginOrNoBrowser(_ headers: HTTPFields, own: Set<String>) -> Bool {
        if let origin = headers[.origin] { return own.contains(origin.lowercased()) }
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!] {
            return site == "same-origin" || site == "none"
        }
        if let referer = headers[.referer] { return origin(of: referer).map(own.contains) ?? false }
        return true
    }

    /// Whether a login form comes from another site: a page elsewhere must
    /// not log a browser in as the attacker's account (login CSRF).
    /// Without `Origin` or `Sec-Fetch-Site`, a `Referer` of another site
    /// says so too, as the dashboard's login form is judged.
    static func isForeign(_ headers: HTTPFields, own: Set<String>) -> Bool {
        if let origin = headers[.origin] { return !own.contains(origin.lowercased()) }
        if let site = headers[HTTPField.Name("Sec-Fetch-Site")!] { return site == "cross-site" || site == "same-site" }
        if let referer = headers[.referer] { return !(origin(of: referer).map(own.contains) ?? false) }
        return false
    }

    /// `scheme://host[:port]` of a URL, lowercased; nil when it has none.
    static func origin(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.host?.lowercased(),
              !host.isEmpty else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = parts.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)\(port)"
    }
}

/// CouchDB's rule for bodies it parses as JSON: any other Content-Type is
/// 415, so a form or `text/plain` post (which a page of any site may send
/// without asking) never reaches a handler.
enum JSONContentType {
    static func isJSON(_ headers: HTTPFields) -> Bool { mediaType(headers) == "application/json" }

    static func isMultipartRelated(_ headers: HTTPFields) -> Bool { mediaType(headers) == "multipart/related" }

    /// The type without its parameters, lowercased.
    static func mediaType(_ headers: HTTPFields) -> String? {
        headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    static let refusal = CouchError(status: .unsupportedMediaType, error: "bad_content_type",
                                    reason: "Content-Type must be application/json")
    static let documentRefusal = CouchError(status: .unsupportedMediaType, error: "bad_content_type",
                                            reason: "Content-Type must be application/json (or multipart/related with attachments)")
}
