import FPCore
import FPNet
import Foundation
import Testing

/// CurlHTTPTransport against real local servers (python3 on 127.0.0.1).
@Suite struct HTTPTransportTests {
    static func serve(_ files: [String: String]) throws -> (LocalServer, URL) {
        let directory = try Support.temporaryDirectory()
        for (name, text) in files { try Support.write(text, to: directory.appendingPathComponent(name)) }
        return (try LocalServer.http(serving: directory), directory)
    }

    @Test func getReturnsBodyStatusAndHeaders() throws {
        let (server, directory) = try Self.serve(["hello.txt": "hello, fprint\n"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = server.baseURL.appendingPathComponent("hello.txt")
        // Several requests over the one reused handle (kept-alive connection).
        for _ in 0..<3 {
            let response = try transport.send(HTTPRequest(url: url))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello, fprint\n")
            #expect(response.headers["content-length"] == "14")
            #expect(response.isSuccess)
        }
    }

    @Test func notFoundIsAResponseNotAnError() throws {
        let (server, directory) = try Self.serve([:])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let url = server.baseURL.appendingPathComponent("missing.json")
        let response = try CurlHTTPTransport().send(HTTPRequest(url: url))
        #expect(response.status == 404)
        #expect(!response.isSuccess)
        #expect(throws: HTTPError.self) { try response.requireSuccess(url: url) }
        do {
            try response.requireSuccess(url: url)
        } catch {
            guard case .status(let shown, 404, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(shown == url.absoluteString)
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func getFollowsRedirectsButPostDoesNot() throws {
        let (server, directory) = try Self.serve(["hello.txt": "moved here"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let url = server.baseURL.appendingPathComponent("redirect")
        let transport = CurlHTTPTransport()
        let followed = try transport.send(HTTPRequest(url: url))
        #expect(followed.status == 200)
        #expect(String(decoding: followed.body, as: UTF8.self) == "moved here")
        // A POST is answered with the redirect itself: its body must not be re-sent elsewhere.
        let post = try transport.send(HTTPRequest(method: .post, url: url, body: Data("x".utf8)))
        #expect(post.status == 302)
        #expect(post.headers["Location"] == "/hello.txt")
        // The redirect limit holds.
        #expect(throws: HTTPError.self) { try CurlHTTPTransport(maxRedirects: 0).send(HTTPRequest(url: url)) }
    }

    @Test func postAndPutSendTheirBodyAndHeaders() throws {
        let (server, directory) = try Self.serve([:])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = server.baseURL.appendingPathComponent("db/doc")
        let post = try transport.send(HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json", "Authorization": "Bearer t0k3n"],
            body: Data(#"{"a":1}"#.utf8)))
        let echoed = try CanonicalJSON.parse(post.body)
        #expect(echoed["method"] == "POST")
        #expect(echoed["body"] == #"{"a":1}"#)
        #expect(echoed["contentType"] == "application/json")
        #expect(echoed["authorization"] == "Bearer t0k3n")
        #expect(echoed["expect"] == .null)  // no `Expect: 100-continue` round trip

        let put = try transport.send(HTTPRequest(method: .put, url: url))  // no body: Content-Length 0
        #expect(try CanonicalJSON.parse(put.body)["method"] == "PUT")
        let delete = try transport.send(HTTPRequest(method: .delete, url: url))
        #expect(try CanonicalJSON.parse(delete.body)["method"] == "DELETE")
    }

    @Test func connectionRefusedIsUnreachableAndHidesCredentials() throws {
        let (server, directory) = try Self.serve([:])
        let url = server.baseURL.appendingPathComponent("app-config.json")
        server.stop()  // the port is now closed: connections are refused
        try? FileManager.default.removeItem(at: directory)
        let request = HTTPRequest(url: url, headers: ["Authorization": "Bearer secret-token-123"])
        do {
            _ = try CurlHTTPTransport().send(request)
            Issue.record("expected an error")
        } catch let error as HTTPError {
            guard case .unreachable(let shown, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(shown == url.absoluteString)
            #expect(!reason.isEmpty)
            #expect(error.description.hasPrefix("cannot reach \(url.absoluteString): "))
            #expect(!error.description.contains("secret-token-123"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func silentServerTimesOut() throws {
        let server = try LocalServer.silent()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("app-config.json")
        let started = Date()
        do {
            _ = try CurlHTTPTransport().send(HTTPRequest(url: url, timeouts: HTTPTimeouts(connect: 1, total: 1)))
            Issue.record("expected a timeout")
        } catch let error as HTTPError {
            guard case .timeout = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.hasPrefix("request to \(url.absoluteString) timed out: "))
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// A connection closed inside the header block is a connection error (so
    /// sync retries it), never a 200 with an empty body; a complete header
    /// block with a short body is one too.
    @Test func responsesCutShortAreErrorsNotAnswers() throws {
        for partial in ["HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"results\":["] {
            let server = try LocalServer.cutting(after: partial)
            defer { server.stop() }
            do {
                let response = try CurlHTTPTransport().send(HTTPRequest(url: server.baseURL.appendingPathComponent("db")))
                Issue.record("a cut response was accepted: status \(response.status), \(response.body.count) bytes")
            } catch let error as HTTPError {
                switch error {
                case .unreachable, .failed: break
                default: Issue.record("unexpected \(error)")
                }
            }
        }
        // The complete answer still works
        let whole = try LocalServer.cutting(after: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        defer { whole.stop() }
        #expect(try CurlHTTPTransport().send(HTTPRequest(url: whole.baseURL.appendingPathComponent("db"))).body == Data("{}".utf8))
    }

    /// Certificates are verified unless the transport is `insecure`.
    @Test func tlsIsVerifiedByDefault() throws {
        let directory = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Support.write("secure", to: directory.appendingPathComponent("hello.txt"))
        let server = try LocalServer.https(serving: directory)
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("hello.txt")
        do {
            _ = try CurlHTTPTransport().send(HTTPRequest(url: url))
            Issue.record("a self-signed certificate was accepted")
        } catch let error as HTTPError {
            guard case .tls = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.hasPrefix("TLS failure with \(url.absoluteString): "))
        }
        let response = try CurlHTTPTransport(insecure: true).send(HTTPRequest(url: url))
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
    }

    @Test func rejectsBadURLsAndHeadersWithoutEchoingValues() throws {
        let transport = CurlHTTPTransport()
        #expect(throws: HTTPError.invalidURL("ftp://example.org/x")) {
            try transport.perform(HTTPRequest(url: try #require(URL(string: "ftp://example.org/x"))))
        }
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        let injected = HTTPRequest(url: url, headers: ["Authorization": "Bearer abc\r\nX-Evil: 1"])
        #expect(throws: HTTPError.invalidRequest("the value of header Authorization contains a line break")) {
            try transport.perform(injected)
        }
        #expect(throws: HTTPError.invalidRequest("GET cannot carry a body")) {
            try transport.perform(HTTPRequest(url: url, body: Data("x".utf8)))
        }
    }

    @Test func displayURLHidesPasswords() {
        #expect(HTTPError.displayURL("http://user:pw@host:5984/db") == "http://***@host:5984/db")
        #expect(HTTPError.displayURL("http://host/db") == "http://host/db")
    }

    @Test func headersAreCaseInsensitiveAndKeepRepeats() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1"]
        headers.add("set-cookie", "b=2")
        #expect(headers["SET-COOKIE"] == "a=1")
        #expect(headers.values("Set-Cookie") == ["a=1", "b=2"])
        headers["Set-Cookie"] = nil
        #expect(headers.fields.isEmpty)
    }
}
