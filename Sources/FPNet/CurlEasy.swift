import CCurl
import Foundation
import Synchronization

/// `curl_global_init` must run once per process before any other libcurl call
/// and is not thread-safe itself; a global `let` is initialised exactly once.
private let curlGlobalInitOK: Bool = fp_curl_global_init() == CURLE_OK

/// What every request of one transport shares.
struct CurlSettings: Sendable {
    var insecure: Bool
    var userAgent: String
    var maxRedirects: Int
}

/// Set from any thread to stop one transfer; libcurl's progress callback
/// reads it on the transfer's thread.
final class CurlAbort: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// One libcurl easy handle, reused so consecutive requests to the same
/// server share a kept-alive connection (and TLS session). Not thread-safe:
/// only its `CurlWorker`'s thread touches it.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let settings: CurlSettings

    init(_ settings: CurlSettings) {
        self.settings = settings
        handle = curlGlobalInitOK ? fp_curl_easy_init() : nil
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let handle { fp_curl_easy_cleanup(handle) }
        errorBuffer.deallocate()
    }

    /// Checks what can be checked without libcurl: the scheme, a body on
    /// GET/HEAD, the header lines (which it returns).
    static func validate(_ request: HTTPRequest) throws(HTTPError) -> [String] {
        let shownURL = HTTPError.displayURL(request.url.absoluteString)
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              request.url.host != nil
        else { throw .invalidURL(shownURL) }
        if (request.method == .get || request.method == .head), request.body != nil {
            throw .invalidRequest("\(request.method) cannot carry a body")
        }
        return try headerLines(request.headers, hasBody: request.body != nil)
    }

    static let loopbackHosts = "localhost,127.0.0.0/8,::1"

    static func isLoopback(_ host: String?) -> Bool {
        guard let host = host?.lowercased() else { return false }
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Runs one transfer on this thread until it ends, fails or `abort` is set.
    func perform(_ request: HTTPRequest, abort: CurlAbort) throws(HTTPError) -> HTTPResponse {
        let urlString = request.url.absoluteString
        let shownURL = HTTPError.displayURL(urlString)
        let headerLines = try Self.validate(request)
        guard let handle else {
            let why = fp_curl_load() == 0 ? "libcurl could not be initialised" : String(cString: fp_curl_load_error())
            throw .failed(url: shownURL, reason: why)
        }
        if abort.isSet { throw .cancelled(url: shownURL) }

        // Reset clears every option but keeps the connection cache, so each
        // request starts clean without losing keep-alive.
        fp_curl_easy_reset(handle)
        errorBuffer[0] = 0
        let sink = ResponseSink()
        let sinkPointer = Unmanaged.passRetained(sink)
        defer { sinkPointer.release() }
        let abortPointer = Unmanaged.passRetained(abort)
        defer { abortPointer.release() }

        var headerList: UnsafeMutablePointer<curl_slist>?
        for line in headerLines { headerList = fp_curl_slist_append(headerList, line) }
        defer { fp_curl_slist_free_all(headerList) }

        var setupOK = true
        func set(_ option: CURLoption, _ value: Int) { setupOK = setupOK && fp_curl_setopt_long(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, _ value: String) { setupOK = setupOK && fp_curl_setopt_pointer(handle, option, value) == CURLE_OK }
        func set(_ option: CURLoption, pointer: UnsafeRawPointer?) {
            setupOK = setupOK && fp_curl_setopt_pointer(handle, option, pointer) == CURLE_OK
        }

        set(CURLOPT_URL, urlString)
        set(CURLOPT_NOSIGNAL, 1)  // no SIGALRM for DNS timeouts: we are multi-threaded
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        // A server on this machine is never asked through a proxy (a proxy
        // named in http_proxy cannot reach our loopback); other hosts follow
        // the environment's no_proxy.
        if Self.isLoopback(request.url.host) { set(CURLOPT_NOPROXY, Self.loopbackHosts) }
        set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.timeouts.connect))
        set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeouts.total))
        set(CURLOPT_USERAGENT, settings.userAgent)
        set(CURLOPT_ACCEPT_ENCODING, "")  // offer every encoding libcurl can decode
        set(CURLOPT_SSL_VERIFYPEER, settings.insecure ? 0 : 1)
        set(CURLOPT_SSL_VERIFYHOST, settings.insecure ? 0 : 2)
        if request.method == .get || request.method == .head {
            set(CURLOPT_FOLLOWLOCATION, 1)
            set(CURLOPT_MAXREDIRS, settings.maxRedirects)
            set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        }
        set(CURLOPT_HTTPHEADER, pointer: headerList)
        set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        setupOK = setupOK && fp_curl_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, writeCallback) == CURLE_OK
        set(CURLOPT_WRITEDATA, pointer: sinkPointer.toOpaque())
        setupOK = setupOK && fp_curl_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION, headerCallback) == CURLE_OK
        set(CURLOPT_HEADERDATA, pointer: sinkPointer.toOpaque())
        // The progress callback is the one place libcurl asks whether to go
        // on, also while it waits for a silent server: cancellation's hook.
        set(CURLOPT_NOPROGRESS, 0)
        setupOK = setupOK && fp_curl_setopt_xferinfo(handle, abortCallback) == CURLE_OK
        set(CURLOPT_XFERINFODATA, pointer: abortPointer.toOpaque())

        switch request.method {
        case .get: set(CURLOPT_HTTPGET, 1)
        case .head: set(CURLOPT_NOBODY, 1)
        case .post: set(CURLOPT_POST, 1)
        default: set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        // POST and PUT always send a body (empty if none) so a Content-Length goes out.
        let body = request.body ?? ((request.method == .post || request.method == .put) ? Data() : nil)
        guard setupOK else { throw .failed(url: shownURL, reason: "libcurl rejected an option") }

        let code: CURLcode
        if let body {
            // libcurl does not copy POSTFIELDS: the bytes must outlive perform,
            // hence perform inside the closure, on the body's own bytes (no
            // copy of a 4 MB batch). An empty body still needs a non-NULL
            // pointer, or libcurl would read the body from stdin.
            let zero: UInt8 = 0
            code = withUnsafePointer(to: zero) { empty in
                body.withUnsafeBytes { buffer in
                    guard fp_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK,
                          fp_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, buffer.baseAddress ?? UnsafeRawPointer(empty))
                              == CURLE_OK
                    else { return CURLE_FAILED_INIT }
                    return fp_curl_easy_perform(handle)
                }
            }
        } else {
            code = fp_curl_easy_perform(handle)
        }
        // Clear pointers into this call's buffers so nothing dangles in the reused handle.
        _ = fp_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        _ = fp_curl_setopt_pointer(handle, CURLOPT_POSTFIELDS, nil)
        _ = fp_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, nil)

        if code == CURLE_ABORTED_BY_CALLBACK, abort.isSet { throw .cancelled(url: shownURL) }
        guard code == CURLE_OK else { throw Self.error(code, url: shownURL, detail: errorText(code)) }
        // libcurl (seen with 7.88) reports success when the connection closes
        // inside the header block, with the headers so far and an empty body.
        guard sink.headersComplete else {
            throw .unreachable(url: shownURL, reason: "the connection closed in the middle of the response headers")
        }
        var status = 0
        _ = fp_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: sink.headers, body: sink.body)
    }

    private func errorText(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        if !detail.isEmpty { return detail }
        return fp_curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    static func error(_ code: CURLcode, url: String, detail: String) -> HTTPError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(url: url, reason: detail)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            return .unreachable(url: url, reason: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_INITFAILED:
            return .tls(url: url, reason: detail)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL(url)
        default:
            return .failed(url: url, reason: detail)
        }
    }

    /// "Name: value" lines for libcurl. Rejects line breaks (header injection)
    /// without echoing the value, which may be a credential.
    static func headerLines(_ headers: HTTPHeaders, hasBody: Bool) throws(HTTPError) -> [String] {
        var lines: [String] = []
        for field in headers {
            let badName = field.name.isEmpty || field.name.contains { $0 == ":" || $0.isWhitespace || $0.isNewline }
            if badName { throw .invalidRequest("header name \"\(field.name)\" is not a valid token") }
            if field.value.contains(where: \.isNewline) {
                throw .invalidRequest("the value of header \(field.name) contains a line break")
            }
            // "Name;" is libcurl's way to send a header with an empty value.
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // libcurl would otherwise add `Expect: 100-continue` to large bodies
        // (a wasted round trip with many servers) and a form Content-Type.
        if headers["Expect"] == nil { lines.append("Expect:") }
        if hasBody, headers["Content-Type"] == nil { lines.append("Content-Type:") }
        return lines
    }

    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }  // 0: no limit, libcurl's convention
        return max(1, Int((seconds * 1000).rounded()))
    }
}

/// Collects one transfer's body and headers from libcurl's callbacks.
final class ResponseSink {
    var body = Data()
    var headers = HTTPHeaders()
    /// The last response's header block ended with its blank line.
    private(set) var headersComplete = false

    /// One header line as libcurl hands it over (with its CRLF). On bytes:
    /// Foundation's trimming costs each request's first use a slow path.
    func headerLine(_ line: UnsafeRawBufferPointer) {
        let trimmed = Self.trimmed(line[...])
        if trimmed.starts(with: "HTTP/".utf8) {
            headers = HTTPHeaders()  // a new response starts (redirect, 100 Continue): keep only the last
            headersComplete = false
        } else if trimmed.isEmpty {
            headersComplete = true
        } else if let colon = trimmed.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: trimmed[..<colon], as: UTF8.self)
            let value = String(decoding: Self.trimmed(trimmed[(colon + 1)...]), as: UTF8.self)
            headers.add(name, value)
        }
    }

    /// Without leading and trailing spaces, tabs and line ends.
    static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let isSpace = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }
}

private let writeCallback: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context, length > 0 else { return length }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.body.append($0, count: length) }
    return length
}

private let headerCallback: curl_write_callback = { data, size, count, context in
    let length = size * count
    guard let data, let context, length > 0 else { return length }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    sink.headerLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// Non-zero stops the transfer with CURLE_ABORTED_BY_CALLBACK.
private let abortCallback: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let context else { return 0 }
    return Unmanaged<CurlAbort>.fromOpaque(context).takeUnretainedValue().isSet ? 1 : 0
}
