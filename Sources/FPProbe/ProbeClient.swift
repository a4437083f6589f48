import FPCore
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Why a phase failed: its status, and a sentence that names the server.
public struct ProbeFailure: Error, CustomStringConvertible, Sendable {
    public let status: ProbeStatus
    public let reason: String
    public var description: String { reason }
}

/// What `fprint probe` asks for.
public struct ProbeOptions: Sendable {
    public var host: String
    public var port: UInt16
    public var token: String
    /// Seconds of each TCP direction (the server may bound it lower).
    public var seconds: Double = 5
    public var datagrams = 200
    public var spacingMs: Double = 20
    public var datagramSize = 200
    public var pings = 10
    /// An unanswered UDP command is re-sent after this many seconds, `udpRetries` times.
    public var udpRetryInterval: Double = 4
    public var udpRetries = 3
    public var connectTimeout: Double = 5

    public init(host: String, port: UInt16, token: String) { (self.host, self.port, self.token) = (host, port, token) }
}

/// The client side of every phase. Blocking sockets with deadlines: run it
/// off Swift's cooperative pool (`BlockingWork`).
public struct ProbeClient: Sendable {
    public let options: ProbeOptions
    /// Ctrl-C: ends the phase in progress and skips the rest.
    public let cancellation: ProbeCancellation
    public init(_ options: ProbeOptions, cancellation: ProbeCancellation = ProbeCancellation()) {
        self.options = options
        self.cancellation = cancellation
    }

    var endpoint: String { options.host.contains(":") ? "[\(options.host)]:\(options.port)" : "\(options.host):\(options.port)" }

    /// Runs every phase; a failed phase says why and the others still run,
    /// but after one that cannot connect the rest are not run (each would
    /// wait out its own connect timeout on a host that drops packets).
    public func run(progress: @Sendable (String) -> Void = { _ in }) -> ProbeReport {
        let started = ISOTime.string(Date())
        var phases: [ProbePhase] = []
        let steps: [(name: String, label: String, body: () -> ProbePhase)] = [
            ("down", "TCP download", { phase("down") { try download() } }),
            ("up", "TCP upload", { phase("up") { try upload() } }),
            ("udp", "UDP train of \(options.datagrams) datagrams", { phase("udp") { try udpTrain() } }),
            ("ping", "ICMP ping", { ProbePing(host: options.host, count: options.pings, cancellation: cancellation).run() }),
        ]
        var notRun: String?
        for step in steps {
            if cancellation.isCancelled {
                phases.append(.failed(step.name, .skipped, "stopped"))
                continue
            }
            if let notRun {
                phases.append(.failed(step.name, .skipped, notRun))
                continue
            }
            progress(step.label)
            let phase = step.body()
            phases.append(phase)
            if phase.status == .unreachable {
                notRun = ProbePhase.notRunPrefix + "\(phase.name) could not connect (\(phase.reason ?? "unreachable"))"
            }
        }
        return ProbeReport(server: endpoint, startedAt: started, endedAt: ISOTime.string(Date()), interface: nil, phases: phases)
    }

    /// A phase's failures as statuses.
    func phase(_ name: String, _ body: () throws -> ProbePhase) -> ProbePhase {
        do { return try body() } catch let failure as ProbeFailure {
            return .failed(name, failure.status, failure.reason)
        } catch let e as ProbeSocketError {
            return .failed(name, e.isTimeout ? .timeout : .protocolError, "\(endpoint): \(e.description)")
        } catch {
            return .failed(name, .protocolError, "\(endpoint): \(error)")
        }
    }


    /// Connects and sends the request line; returns the channel after an `ok` answer.
    func open(_ request: JSONValue) throws -> (LineChannel, JSONValue) {
        let address: ProbeAddress
        let fd: Int32
        do {
            address = try ProbeAddress.resolve(options.host, port: options.port)
            fd = try Sock.connect(to: address, timeout: options.connectTimeout)
        } catch let e as ProbeSocketError {
            let why = e.errno != 0 ? Errno(rawValue: e.errno).description : e.description
            throw ProbeFailure(status: .unreachable, reason: "cannot connect to \(endpoint): \(why)")
        }
        cancellation.watch(fd)
        Sock.setTimeouts(fd, seconds: options.seconds + 15)
        var channel = LineChannel(fd: fd)
        var line = request
        line["token"] = .string(options.token)
        do {
            try channel.write(line)
            let answer = try channel.readJSON(maxBytes: ProbeWire.maxLine)
            guard answer["ok"]?.boolValue == true else {
                cancellation.close(fd)
                let status = answer["status"]?.stringValue.flatMap(ProbeStatus.init(rawValue:)) ?? .protocolError
                throw ProbeFailure(status: status, reason: "\(endpoint): \(answer["reason"]?.stringValue ?? "refused")")
            }
            return (channel, answer)
        } catch let e as ProbeSocketError {
            cancellation.close(fd)
            throw e
        }
    }

    /// Reads the signed result line that ends a phase.
    func result(_ name: String, _ channel: inout LineChannel) throws -> ProbePhase {
        let answer = try channel.readJSON(maxBytes: ProbeWire.maxLine)
        guard answer["ok"]?.boolValue == true, let signed = answer["signed"], let result = signed["result"]?.objectValue else {
            let status = answer["status"]?.stringValue.flatMap(ProbeStatus.init(rawValue:)) ?? .protocolError
            throw ProbeFailure(status: status, reason: "\(endpoint): \(answer["reason"]?.stringValue ?? "no result")")
        }
        let figures = JSONObject(members: result.members.filter { ProbePhase.figureKeys.contains($0.key) })
        return ProbePhase(name: name, status: .ok, signed: signed, figures: figures)
    }

    func download() throws -> ProbePhase {
        var (channel, _) = try open(["op": "down", "seconds": .double(options.seconds)])
        defer { cancellation.close(channel.fd) }
        var reader = FrameReader(fd: channel.fd, pending: channel.pending)
        var received = 0
        var unacknowledged = 0
        while let size = try reader.nextFrame() {
            received += size
            unacknowledged += size
            if unacknowledged >= ProbeWire.ackEvery {
                try Sock.sendAll(channel.fd, ProbeWire.beBytes(UInt64(received), count: 8))
                unacknowledged = 0
            }
        }
        try Sock.sendAll(channel.fd, ProbeWire.beBytes(UInt64(received), count: 8))
        channel.pending = reader.pending
        return try result("down", &channel)
    }

    func upload() throws -> ProbePhase {
        var (channel, answer) = try open(["op": "up", "seconds": .double(options.seconds)])
        defer { cancellation.close(channel.fd) }
        let seconds = answer["seconds"]?.doubleValue ?? options.seconds
        let limit = Int(answer["bytes"]?.intValue ?? 0)
        let chunk = [UInt8](repeating: 0xA5, count: ProbeWire.frameSize)
        let start = ProbeClock.nowMicros()
        var sent = 0
        do {
            while sent < limit && Double(ProbeClock.nowMicros() - start) / 1e6 < seconds {
                let size = min(chunk.count, limit - sent)
                try chunk.withUnsafeBytes { try Sock.sendAll(channel.fd, UnsafeRawBufferPointer(rebasing: $0[..<size])) }
                sent += size
            }
        } catch {
            // The server stopped reading at its bound: its result is waiting.
        }
        shutdown(channel.fd, Int32(SHUT_WR))
        return try result("up", &channel)
    }
}

/// Reads a download's frames (4-byte length, payload; 0 ends), discarding
/// payload; reads in large chunks, so a frame costs no system call of its own.
struct FrameReader {
    let fd: Int32
    var pending: [UInt8]
    var buffer = [UInt8](repeating: 0, count: 512 << 10)
    /// Valid bytes in `buffer` from `position`.
    var position = 0, end = 0

    init(fd: Int32, pending: [UInt8]) {
        (self.fd, self.pending) = (fd, [])
        buffer.replaceSubrange(0..<pending.count, with: pending)
        end = pending.count
    }

    mutating func fill() throws {
        if position == end { (position, end) = (0, 0) }
        if end == buffer.count {  // move what is left to the front
            buffer.replaceSubrange(0..<(end - position), with: buffer[position..<end])
            (position, end) = (0, end - position)
        }
        let n = try buffer.withUnsafeMutableBytes { raw in
            try Sock.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
        }
        if n == 0 { throw ProbeSocketError(message: "the connection closed mid-download") }
        end += n
    }

    /// The next frame's payload size, nil at the end frame.
    mutating func nextFrame() throws -> Int? {
        while end - position < 4 { try fill() }
        let size = Int(buffer[position]) << 24 | Int(buffer[position + 1]) << 16 | Int(buffer[position + 2]) << 8 | Int(buffer[position + 3])
        position += 4
        if size == 0 {
            pending = Array(buffer[position..<end])
            return nil
        }
        guard size <= ProbeWire.frameSize else { throw ProbeSocketError(message: "a frame of \(size) bytes") }
        var left = size
        while left > 0 {
            if position == end { try fill() }
            let take = min(left, end - position)
            position += take
            left -= take
        }
        return size
    }
}
