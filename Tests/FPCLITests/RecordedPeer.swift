import FPTestSupport
import Foundation
import Testing

/// A tiny HTTP/1.1 server on a loopback port that answers each request from
/// a closure and records what arrived: it stands in for a real CouchDB by
/// replaying its recorded answers (`Fixtures/couchdb-3.5-answers.txt`).
/// One connection at a time, `Connection: close` on every answer.
final class RecordedPeer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: Data
        func header(_ name: String) -> String? {
            headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
    }

    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)] = [("Content-Type", "application/json")]
        var body: String
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var recorded: [Request] = []
    private let answer: @Sendable (Request) -> Answer

    init(_ answer: @escaping @Sendable (Request) -> Answer) throws {
        self.answer = answer
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw RawHTTPError("bind/listen: errno \(errno)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: actual.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    private var stopped = false

    /// Closes the listening socket once (a second close could hit a reused descriptor).
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func serve() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            if let request = read(fd) {
                lock.lock()
                recorded.append(request)
                lock.unlock()
                let a = answer(request)
                var text = "HTTP/1.1 \(a.status) X\r\nConnection: close\r\nContent-Length: \(a.body.utf8.count)\r\n"
                for (name, value) in a.headers { text += "\(name): \(value)\r\n" }
                text += "\r\n" + a.body
                let bytes = Array(text.utf8)
                var offset = 0
                while offset < bytes.count {
                    let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(fd)
        }
    }

    private func read(_ fd: Int32) -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Range<Data.Index>?
        while headerEnd == nil {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
            headerEnd = data.range(of: Data("\r\n\r\n".utf8))
        }
        let head = String(decoding: data[..<headerEnd!.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let first = head[0].split(separator: " ")
        guard first.count >= 2 else { return nil }
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        var body = Data(data[headerEnd!.upperBound...])
        while body.count < length {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            body.append(contentsOf: buffer[0..<n])
        }
        return Request(method: String(first[0]), path: String(first[1]), headers: headers, body: body)
    }
}

/// The recorded CouchDB 3.5 exchanges: `>>> curl …` lines, each followed by
/// the raw answer (status line, headers, blank line, body).
struct CouchTranscript {
    struct Exchange {
        var command: String
        var status: Int
        var headers: [(String, String)]
        var body: String
    }

    let exchanges: [Exchange]

    init() throws {
        let url = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPSyncTests/Fixtures/couchdb-3.5-answers.txt")
        let text = try String(contentsOf: url, encoding: .utf8)
        var out: [Exchange] = []
        for block in text.components(separatedBy: ">>> ").dropFirst() {
            let lines = block.components(separatedBy: "\n")
            guard lines.count > 1, let status = Int(lines[1].split(separator: " ").dropFirst().first ?? "") else { continue }
            var headers: [(String, String)] = []
            var index = 2
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                let line = lines[index]
                if let colon = line.firstIndex(of: ":") {
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
                index += 1
            }
            let body = lines[(index + 1)...].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            out.append(Exchange(command: lines[0], status: status, headers: headers, body: body))
        }
        exchanges = out
    }

    /// The first exchange whose curl command contains every fragment.
    func exchange(_ fragments: String...) throws -> Exchange {
        try #require(exchanges.first { e in fragments.allSatisfy { e.command.contains($0) } })
    }

    func answer(_ fragments: String...) throws -> RecordedPeer.Answer {
        let e = try #require(exchanges.first { e in fragments.allSatisfy { e.command.contains($0) } })
        return RecordedPeer.Answer(status: e.status, headers: e.headers.filter { $0.0.lowercased() != "content-length" }, body: e.body)
    }
}
