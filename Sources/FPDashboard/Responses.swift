import FPCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The dashboard's HTTP answers: pages with their security headers,
/// redirects, the session cookie.
enum Responses {
    /// No inline script may run, nothing loads from elsewhere, no page may frame these.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func page(_ status: HTTPResponse.Status = .ok, title: String, user: DashboardUser?, canLogout: Bool,
                     content: String, script: String? = nil, canSurvey: Bool = false, head: Bool = false) -> Response {
        var context: [String: Any] = ["title": title, "content": content]
        if let script { context["script"] = script }
        if let user {
            // Only the gateway has logins; a page without them is `fprint dashboard`'s, which has no
            // accounts or tokens (no Admin page), and whose documents are all the local user's.
            let local = !canLogout
            context["user"] = ["name": user.name, "role": user.role.rawValue, "surveyor": user.role != .viewer,
                               "admin": user.role == .admin && !local, "canLogout": canLogout, "survey": canSurvey,
                               "uploads": local ? "Documents" : "My uploads"] as [String: Any]
        }
        return html(status, Templates.render("layout", context), head: head)
    }

    static func html(_ status: HTTPResponse.Status, _ text: String, head: Bool = false) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = "text/html; charset=utf-8"
        return body(status, headers, Data(text.utf8), head: head)
    }

    /// A JSON answer for the Survey page's script.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable, head: Bool = false) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = "application/json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return body(status, headers, data, head: head)
    }

    static func asset(_ text: String, type: String, head: Bool) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = type
        headers[.cacheControl] = "max-age=300"
        return body(.ok, headers, Data(text.utf8), head: head)
    }

    static func body(_ status: HTTPResponse.Status, _ headers: HTTPFields, _ data: Data, head: Bool) -> Response {
        var headers = headers
        headers[.contentLength] = String(data.count)
        if head { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func securityHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "same-origin"
        // Pages hold survey data for logged-in people: no shared cache keeps them.
        headers[.cacheControl] = "no-store"
        return headers
    }

    /// 303: after a form, the browser GETs the next page.
    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var headers = securityHeaders()
        headers[.location] = location
        headers[.contentLength] = "0"
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    /// The gateway's `AuthSession` cookie, out of reach of scripts and of other sites' requests.
    static func sessionCookie(_ token: String, maxAge: Int64, secure: Bool) -> String {
        "AuthSession=\(token); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func message(_ status: HTTPResponse.Status, heading: String, text: String, user: DashboardUser?,
                        canLogout: Bool, head: Bool = false) -> Response {
        page(status, title: heading, user: user, canLogout: canLogout,
             content: Templates.render("message", ["heading": heading, "text": text]), head: head)
    }
}

/// `application/x-www-form-urlencoded` text (a form body, a URL's query).
enum Form {
    /// A request's form body of at most `limit` bytes; nil when it is larger
    /// (refused on its declared length before any byte is read).
    static func read(_ request: inout Request, limit: Int) async -> [String: String]? {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { return nil }
        guard let body = try? await request.collectBody(upTo: limit) else { return nil }
        return parse(String(buffer: body))
    }

    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func decode(_ s: Substring) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
