import FPCore
@testable import FPNet
import Foundation
import Testing

/// CurlHTTPTransport against real local servers (python3 on 127.0.0.1).
@Suite struct HTTPTransportTests {
    static func serve(_ files: [String: String]) async throws -> (LocalServer, URL) {
        let directory = try Support.temporaryDirectory()
        for (name, text) in files { try Support.write(text, to: directory.appendingPathComponent(name)) }
        return (try await LocalServer.http(serving: directory), directory)
    }

    @Test func getReturnsBodyStatusAndHeaders() async throws {
        let (server, directory) = try await Self.serve(["hello.txt": "hello, fprint\n"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = server.baseURL.appendingPathComponent("hello.txt")
        // Several requests over the one reused handle (kept-alive connection).
        for _ in 0..<3 {
            let response = try await transport.send(HTTPRequest(url: url))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "hello, fprint\n")
            #expect(response.headers["content-length"] == "14")
            #expect(response.isSuccess)
        }
    }

    @Test func notFoundIsAResponseNotAnError() async throws {
        let (server, directory) = try await Self.serve([:])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let url = server.baseURL.appendingPathComponent("missing.json")
        let response = try await CurlHTTPTransport().send(HTTPRequest(url: url))
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

    @Test func getFollowsRedirectsButPostDoesNot() async throws {
        let (server, directory) = try await Self.serve(["hello.txt": "moved here"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let url = server.baseURL.appendingPathComponent("redirect")
        let transport = CurlHTTPTransport()
        let followed = try await transport.send(HTTPRequest(url: url))
        #expect(followed.status == 200)
        #expect(String(decoding: followed.body, as: UTF8.self) == "moved here")
        // A POST is answered with the redirect itself: its body must not be re-sent elsewhere.
        let post = try await transport.send(HTTPRequest(method: .post, url: url, body: Data("x".utf8)))
        #expect(post.status == 302)
        #expect(post.headers["Location"] == "/hello.txt")
        // The redirect limit holds.
        await #expect(throws: HTTPError.self) { try await CurlHTTPTransport(maxRedirects: 0).send(HTTPRequest(url: url)) }
    }

    @Test func postAndPutSendTheirBodyAndHeaders() async throws {
        let (server, directory) = try await Self.serve([:])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = server.baseURL.appendingPathComponent("db/doc")
        let post = try await transport.send(HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json", "Authorization": "Bearer t0k3n"],
            body: Data(#"{"a":1}"#.utf8)))
        let echoed = try CanonicalJSON.parse(post.body)
        #expect(echoed["method"] == "POST")
        #expect(echoed["body"] == #"{"a":1}"#)
        #expect(echoed["contentType"] == "application/json")
        #expect(echoed["authorization"] == "Bearer t0k3n")
        #expect(echoed["expect"] == .null)  // no `Expect: 100-continue` round trip

        let put = try await transport.send(HTTPRequest(method: .put, url: url))  // no body: Content-Length 0
        #expect(try CanonicalJSON.parse(put.body)["method"] == "PUT")
        let delete = try await transport.send(HTTPRequest(method: .delete, url: url))
        #expect(try CanonicalJSON.parse(delete.body)["method"] == "DELETE")
    }

    @Test func connectionRefusedIsUnreachableAndHidesCredentials() async throws {
        let (server, directory) = try await Self.serve([:])
        let url = server.baseURL.appendingPathComponent("app-config.json")
        server.stop()  // the port is now closed: connections are refused
        try? FileManager.default.removeItem(at: directory)
        let request = HTTPRequest(url: url, headers: ["Authorization": "Bearer secret-token-123"])
        do throws(HTTPError) {
            _ = try await CurlHTTPTransport().send(request)
            Issue.record("expected an error")
        } catch {
            guard case .unreachable(let shown, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(shown == url.absoluteString)
            #expect(!reason.isEmpty)
            #expect(error.description.hasPrefix("cannot reach \(url.absoluteString): "))
            #expect(!error.description.contains("secret-token-123"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func silentServerTimesOut() async throws {
        let server = try await LocalServer.silent()
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("app-config.json")
        let started = Date()
        do throws(HTTPError) {
            _ = try await CurlHTTPTransport().send(HTTPRequest(url: url, timeouts: HTTPTimeouts(connect: 1, total: 1)))
            Issue.record("expected a timeout")
        } catch {
            guard case .timeout = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.hasPrefix("request to \(url.absoluteString) timed out: "))
        }
        // The 1 s limit, not libcurl's default of none; a bound only that
        // generous, since the whole suite on busy cores may hold the pool's
        // threads while this waits to resume (36 s seen under load).
        #expect(Date().timeIntervalSince(started) < 300)
    }

    /// Cancelling the task that waits stops the transfer (libcurl's progress
    /// callback, about once a second while a silent server says nothing):
    /// the call throws `cancelled` long before the 30 s timeout, and the
    /// transport's thread is free for the next request.
    @Test func cancellingTheCallerAbortsTheTransfer() async throws {
        let silent = try await LocalServer.silent()
        defer { silent.stop() }
        let (server, directory) = try await Self.serve(["hello.txt": "still here"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = silent.baseURL.appendingPathComponent("db")
        let waiting = Task {
            try await transport.send(HTTPRequest(url: url, timeouts: HTTPTimeouts(connect: 30, total: 30)))
        }
        try await Task.sleep(for: .milliseconds(300))  // the request is sent and waits for an answer
        waiting.cancel()
        let result = await waiting.result
        // The outcome says what ended the wait: a transfer that ran on to its
        // 30 s limit would end as a timeout, however long that took here.
        switch result {
        case .success(let response): Issue.record("a silent server answered \(response.status)")
        case .failure(let error):
            #expect(error as? HTTPError == .cancelled(url: url.absoluteString))
            #expect((error as? HTTPError)?.description == "request to \(url.absoluteString) cancelled")
        }
        // The same transport (its one thread and handle) goes on working.
        let next = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("hello.txt")))
        #expect(String(decoding: next.body, as: UTF8.self) == "still here")
        // A task cancelled before it sends never starts a transfer.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: url))
        }
        await #expect(throws: HTTPError.cancelled(url: url.absoluteString)) { try await early.value }
    }

    /// Synchronous callers (the config loader) wait on their own thread; the
    /// transfer still runs on the transport's thread, with the same handle.
    @Test func theBlockingFormAnswersLikeTheAsyncOne() async throws {
        let (server, directory) = try await Self.serve(["hello.txt": "hello, fprint\n"])
        defer { server.stop(); try? FileManager.default.removeItem(at: directory) }
        let transport = CurlHTTPTransport()
        let url = server.baseURL.appendingPathComponent("hello.txt")
        let blocking = try transport.sendBlocking(HTTPRequest(url: url))
        let awaited = try await transport.send(HTTPRequest(url: url))
        #expect(blocking.status == 200 && blocking.body == awaited.body && blocking.headers["content-length"] == "14")
        #expect(throws: HTTPError.invalidRequest("GET cannot carry a body")) {
            try transport.sendBlocking(HTTPRequest(url: url, body: Data("x".utf8)))
        }
    }

    /// A connection closed inside the header block is a connection error (so
    /// sync retries it), never a 200 with an empty body; a complete header
    /// block with a short body is one too.
    @Test func responsesCutShortAreErrorsNotAnswers() async throws {
        for partial in ["HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n",
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"results\":["] {
            let server = try await LocalServer.cutting(after: partial)
            defer { server.stop() }
            do throws(HTTPError) {
                let response = try await CurlHTTPTransport().send(HTTPRequest(url: server.baseURL.appendingPathComponent("db")))
                Issue.record("a cut response was accepted: status \(response.status), \(response.body.count) bytes")
            } catch {
                switch error {
                case .unreachable, .failed: break
                default: Issue.record("unexpected \(error)")
                }
            }
        }
        // The complete answer still works
        let whole = try await LocalServer.cutting(after: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        defer { whole.stop() }
        #expect(try await CurlHTTPTransport().send(HTTPRequest(url: whole.baseURL.appendingPathComponent("db"))).body == Data("{}".utf8))
    }

    /// Certificates are verified unless the transport is `insecure`.
    @Test func tlsIsVerifiedByDefault() async throws {
        let directory = try Support.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Support.write("secure", to: directory.appendingPathComponent("hello.txt"))
        let server = try await LocalServer.https(serving: directory)
        defer { server.stop() }
        let url = server.baseURL.appendingPathComponent("hello.txt")
        do throws(HTTPError) {
            _ = try await CurlHTTPTransport().send(HTTPRequest(url: url))
            Issue.record("a self-signed certificate was accepted")
        } catch {
            guard case .tls = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.description.hasPrefix("TLS failure with \(url.absoluteString): "))
        }
        let response = try await CurlHTTPTransport(insecure: true).send(HTTPRequest(url: url))
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
    }

    @Test func rejectsBadURLsAndHeadersWithoutEchoingValues() async throws {
        let transport = CurlHTTPTransport()
        await #expect(throws: HTTPError.invalidURL("ftp://example.org/x")) {
            try await transport.send(HTTPRequest(url: try #require(URL(string: "ftp://example.org/x"))))
        }
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        let injected = HTTPRequest(url: url, headers: ["Authorization": "Bearer abc\r\nX-Evil: 1"])
        await #expect(throws: HTTPError.invalidRequest("the value of header Authorization contains a line break")) {
            try await transport.send(injected)
        }
        await #expect(throws: HTTPError.invalidRequest("GET cannot carry a body")) {
            try await transport.send(HTTPRequest(url: url, body: Data("x".utf8)))
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

/// libcurl hands header lines over as bytes with their CRLF; the sink keeps
/// only the last response's fields, trimmed, values kept as sent.
@Suite struct ResponseSinkTests {
    static func feed(_ sink: ResponseSink, _ lines: [String]) {
        for line in lines {
            Array(line.utf8).withUnsafeBytes { sink.headerLine($0) }
        }
    }

    @Test func keepsTheLastResponsesTrimmedFields() {
        let sink = ResponseSink()
        Self.feed(sink, ["HTTP/1.1 100 Continue\r\n", "X-Early: 1\r\n", "\r\n"])
        #expect(sink.headersComplete && sink.headers["X-Early"] == "1")
        Self.feed(sink, ["HTTP/1.1 201 Created\r\n", "Content-Type:  application/json \r\n", "ETag:\t\"1-abc\"\r\n",
                         "Set-Cookie: AuthSession=a:b=c; Path=/\r\n", "Empty:\r\n", "no colon here\r\n"])
        #expect(!sink.headersComplete)
        #expect(sink.headers["X-Early"] == nil)
        #expect(sink.headers["content-type"] == "application/json")
        #expect(sink.headers["ETag"] == "\"1-abc\"")
        // Only the first colon splits: the value keeps its own.
        #expect(sink.headers["Set-Cookie"] == "AuthSession=a:b=c; Path=/")
        #expect(sink.headers["Empty"] == "")
        Self.feed(sink, ["\r\n"])
        #expect(sink.headersComplete)
    }

    @Test func nonASCIIValueBytesSurviveAsUTF8() {
        let sink = ResponseSink()
        Self.feed(sink, ["HTTP/1.1 200 OK\r\n", "X-Name: Zürich\r\n"])
        #expect(sink.headers["X-Name"] == "Zürich")
    }
}
