import FPCore

/// The probe protocol's constants and its one datagram layout (docs/ARCHITECTURE.md, "Network probes").
///
/// TCP: the client sends one JSON line `{"op", "token", …}`; the server
/// checks the token and its limits before anything else, and answers
/// `{"ok": true, …}` or `{"ok": false, "status", "reason"}`. Then, per op:
/// - `down`: the server sends frames (4-byte big-endian length, payload;
///   length 0 ends) and the client acknowledges the bytes it has read
///   (8-byte big-endian counts); the server times the acknowledgements.
/// - `up`: the client sends raw bytes and half-closes; the server times its reads.
/// - `udp`: the server opens a UDP session (id in the answer); the client
///   sends datagrams to the same port, the server echoes each with its
///   receive time; the client then reports what came back (a JSON line).
/// Every result line is `{"ok": true, "signed": {"alg", "key", "result", "signature"}}`
/// (`ProbeSigner`); nobody asks the server about a result again: its public
/// key checks it offline.
public enum ProbeWire {
    public static let defaultPort: UInt16 = 5985
    /// The longest request or report line (a 5,000-datagram report fits).
    static let maxLine = 256 << 10
    static let frameSize = 64 << 10
    /// The client acknowledges at least every this many bytes of a download.
    static let ackEvery = 128 << 10

    /// Datagram: "FPPB", kind, 3 zero bytes, session (8), seq (4), client send µs (8), server receive µs (8), padding.
    static let magic: [UInt8] = Array("FPPB".utf8)
    static let headerSize = 36
    enum Kind: UInt8 { case hello = 1, hop = 2, echo = 3, helloAck = 4 }

    package struct Datagram: Equatable {
        var kind: Kind
        var session: UInt64
        var seq: UInt32
        var clientSentMicros: Int64
        var serverReceivedMicros: Int64

        func bytes(size: Int) -> [UInt8] {
            var out = magic + [kind.rawValue, 0, 0, 0]
            append(session, to: &out)
            append(UInt64(seq) << 32, to: &out, count: 4)
            append(UInt64(bitPattern: clientSentMicros), to: &out)
            append(UInt64(bitPattern: serverReceivedMicros), to: &out)
            if out.count < size { out += [UInt8](repeating: 0, count: size - out.count) }
            return out
        }

        init(kind: Kind, session: UInt64, seq: UInt32, clientSentMicros: Int64, serverReceivedMicros: Int64 = 0) {
            (self.kind, self.session, self.seq) = (kind, session, seq)
            (self.clientSentMicros, self.serverReceivedMicros) = (clientSentMicros, serverReceivedMicros)
        }

        /// Nil for anything that is not one of ours (wrong magic, short, unknown kind).
        package init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes)
            guard b.count >= headerSize, Array(b[0..<4]) == magic, let kind = Kind(rawValue: b[4]) else { return nil }
            self.kind = kind
            session = read(b, 8, 8)
            seq = UInt32(read(b, 16, 4))
            clientSentMicros = Int64(bitPattern: read(b, 20, 8))
            serverReceivedMicros = Int64(bitPattern: read(b, 28, 8))
        }
    }

    private static func append(_ value: UInt64, to out: inout [UInt8], count: Int = 8) {
        for i in 0..<count { out.append(UInt8(truncatingIfNeeded: value >> (56 - 8 * i))) }
    }

    static func read(_ b: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<count { v = v << 8 | UInt64(b[at + i]) }
        return v
    }

    static func beBytes(_ value: UInt64, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in (0..<count).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
        return out
    }

    /// A refusal line.
    static func refusal(_ status: ProbeStatus, _ reason: String, retryAfter: Int? = nil) -> JSONValue {
        var v: JSONValue = ["ok": false, "status": .string(status.rawValue), "reason": .string(reason)]
        if let retryAfter { v["retryAfter"] = .int(Int64(retryAfter)) }
        return v
    }
}

/// The status of one probe phase: the `status` of each `networkProbes[]` phase.
public enum ProbeStatus: String, Sendable, CaseIterable {
    case ok
    /// No TCP connection to the probe port (server down, wrong port, filtered).
    case unreachable
    /// The server refused the token.
    case unauthorized
    /// The client is over the server's rate limit (retry later).
    case rateLimited = "rate-limited"
    /// UDP: the session's hello was unanswered after 3 re-sends 4 s apart (UDP blocked?).
    case noUDPAnswer = "no-udp-answer"
    /// The server stopped answering mid-phase.
    case timeout
    /// The peer sent something the protocol does not allow.
    case protocolError = "protocol-error"
    /// Not measurable here (e.g. no unprivileged ICMP sockets).
    case unavailable
    /// The phase was not run (not asked for).
    case skipped

    /// Numeric code, stable for scripts (docs/network-quality.md's list).
    public var code: Int {
        switch self {
        case .ok: 0
        case .unreachable: 1
        case .unauthorized: 2
        case .rateLimited: 3
        case .noUDPAnswer: 4
        case .timeout: 5
        case .protocolError: 6
        case .unavailable: 7
        case .skipped: 8
        }
    }
}
