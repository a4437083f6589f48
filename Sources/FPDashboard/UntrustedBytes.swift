import HTTPTypes

/// How bytes that someone chose go out (a floor-plan picture, an
/// attachment, a file beside the app config): as data, never as a page of
/// this origin. An SVG can hold script: under the dashboard's own policy
/// (`script-src 'self'`) a plan ran another user's uploaded attachment with
/// the viewer's session. So no script at all, and a sandbox (an opaque
/// origin: no cookies, no storage, no requests as the viewer); inline
/// styles and data: pictures only, so a plan opened on its own still looks
/// as it does under the plots; nosniff, so a browser takes the declared type.
package enum UntrustedBytes {
    package static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// The policy and nosniff, over whatever `headers` said of them.
    package static func mark(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
    }
}
