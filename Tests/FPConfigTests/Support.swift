import FPTestSupport
import Foundation
import Testing

/// Paths and helpers shared by the FPConfig tests.
enum Support {
    /// The repository root, found from this file (Tests/FPConfigTests/Support.swift).
    static let repoRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fixtures = FixtureFolder(.module)

    static func fixture(_ name: String) throws -> URL { fixtures.url(name) }

    static func fixtureData(_ name: String) throws -> Data { try fixtures.data(name) }

    /// A fresh temporary directory; the caller removes it.
    static func temporaryDirectory() throws -> URL { try makeTemporaryFolder("fpconfig-tests") }

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}

/// A Python helper process listening on 127.0.0.1 on a port the kernel
/// chose; the script prints that port as its first line.
final class LocalServer: @unchecked Sendable {
    // @unchecked: `process` is only stopped, which Process allows from any thread.
    let process: Process
    let port: Int
    let scheme: String
    var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/") }

    /// Serves `directory` like `python3 -m http.server`, over HTTP/1.1 (so
    /// connections are kept alive), and adds for transport tests:
    /// `/redirect` → 302 to `/hello.txt` (any method); POST/PUT/DELETE echo the request
    /// as JSON (`method`, `path`, `body`, `contentType`, `expect`, `authorization`).
    static func http(serving directory: URL) async throws -> LocalServer {
        try await LocalServer(script: httpScript, arguments: [directory.path], scheme: "http")
    }

    /// The same over HTTPS with the self-signed test certificate in Fixtures/.
    static func https(serving directory: URL) async throws -> LocalServer {
        let arguments = [directory.path, try Support.fixture("tls-test-cert.pem").path,
                         try Support.fixture("tls-test-key.pem").path]
        return try await LocalServer(script: httpScript, arguments: arguments, scheme: "https")
    }

    /// Accepts connections and never answers: for timeouts.
    static func silent() async throws -> LocalServer {
        try await LocalServer(script: silentScript, arguments: [], scheme: "http")
    }

    /// Reads a request, answers `partial` (raw bytes of a response cut short) and closes.
    static func cutting(after partial: String) async throws -> LocalServer {
        try await LocalServer(script: cuttingScript, arguments: [partial], scheme: "http")
    }

    private init(script: String, arguments: [String], scheme: String) async throws {
        // No setenv("no_proxy") here: changing the environment while other
        // tests' threads read it (getenv in libcurl, Process) can crash the
        // suite; the transport asks a loopback host directly whatever proxy
        // the environment names (SyncCLITests checks it with a dead proxy).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try await process.runWhenDescriptorsAllow()
        // Read on a thread of its own (closed when the server ends), awaited
        // here: a blocking read would hold a thread of the cooperative pool
        // while python starts.
        let printed = PipeDrain(output.fileHandleForReading, name: "local-server")
        let deadline = ContinuousClock.now + .seconds(30)
        while !printed.soFar.contains(UInt8(ascii: "\n")), process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let text = String(decoding: printed.soFar, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(text) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ServerError(message: "the python3 test server did not start (output: \(text))")
        }
        self.process = process
        self.port = port
        self.scheme = scheme
    }

    /// SIGKILL, not `terminate()`: the child inherits the signal mask of the
    /// spawning test thread, where SIGTERM may be blocked, and would then
    /// never exit (and `waitUntilExit` never return).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    struct ServerError: Error, CustomStringConvertible { let message: String; var description: String { message } }

    private static let httpScript = #"""
import functools, http.server, json, sys

class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def redirect(self):
        self.send_response(302)
        self.send_header("Location", "/hello.txt")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path == "/redirect":
            self.redirect()
        else:
            super().do_GET()

    def echo(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/redirect":
            return self.redirect()
        reply = json.dumps({
            "method": self.command, "path": self.path, "body": body.decode("utf-8"),
            "contentType": self.headers.get("Content-Type"), "expect": self.headers.get("Expect"),
            "authorization": self.headers.get("Authorization"),
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    do_POST = do_PUT = do_DELETE = echo

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
if len(sys.argv) > 3:  # HTTPS with the given certificate and key
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"""#

    private static let silentScript = #"""
import socket
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
held = []
while True:
    connection, _ = listener.accept()
    held.append(connection)
"""#

    private static let cuttingScript = #"""
import socket, sys
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    connection, _ = listener.accept()
    request = b""
    while b"\r\n\r\n" not in request:
        chunk = connection.recv(65536)
        if not chunk:
            break
        request += chunk
    connection.sendall(sys.argv[1].encode())
    connection.close()
"""#
}
