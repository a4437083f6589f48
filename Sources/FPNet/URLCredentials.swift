import Foundation

/// `user:password@` taken out of a URL, so the URL can be shown, hashed and
/// logged, and the credentials sent as a header on every request instead.
package struct URLCredentials: Sendable, Equatable {
    package var user: String
    package var password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The URL without user info, and the credentials it carried (nil when none).
    package static func split(_ url: URL) -> (url: URL, credentials: URLCredentials?) {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
              parts.user != nil || parts.password != nil
        else { return (url, nil) }
        // percentEncodedUser: `p%40ss` in a URL is the password `p@ss`.
        let user = (parts.percentEncodedUser ?? "").removingPercentEncoding ?? ""
        let password = (parts.percentEncodedPassword ?? "").removingPercentEncoding ?? ""
        parts.user = nil
        parts.password = nil
        return (parts.url ?? url, URLCredentials(user: user, password: password))
    }

    /// `Authorization: Basic …` for these credentials.
    package var basicHeader: String { HTTPAuth.basic(user: user, password: password) }
}

/// Header values and URL keys shared by everything that authenticates.
package enum HTTPAuth {
    package static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// `scheme://host:port` in lower case with the scheme's default port made
    /// explicit: what a cookie or a stored credential may be sent to.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    /// One credential per database: the origin plus the path without a
    /// trailing slash, no user info, query or fragment.
    package static func databaseKey(of url: URL) -> String? {
        guard let origin = origin(of: url) else { return nil }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return origin + path
    }

    /// `application/x-www-form-urlencoded` text of name/value pairs, as
    /// CouchDB's replicator sends its `POST /_session`.
    package static func formBody(_ fields: [(String, String)]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        let text = fields.map { name, value in
            let encode = { (s: String) in
                (s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s).replacingOccurrences(of: "%20", with: "+")
            }
            return encode(name) + "=" + encode(value)
        }.joined(separator: "&")
        return Data(text.utf8)
    }
}
