import FPCore

/// A probe phase as stored (an element of `networkProbes[].phases`, or of
/// `fprint probe --json`'s `phases`): the figures to show and what they rest
/// on. The figures beside `signed` are a copy for people reading the JSON;
/// what is shown, exported and verified is the signed result, and a copy that
/// differs from it marks the phase as edited: it is never believed.
public struct StoredProbePhase: Sendable {
    public enum Standing: Sendable, Equatable {
        /// Figures from the server's signed result, the copy beside it the same
        /// (whether a trusted key made the signature is for `--verify` to say: `ProbeSignatureCheck`).
        case signed
        /// Figures that cannot be trusted, and why.
        case unverified(String)
        /// Measured by the client (the ICMP ping): never signed.
        case clientMeasured
        /// No figures (the phase failed or did not run).
        case noFigures
    }

    public let name: String
    public let status: String
    public let reason: String?
    /// `{"result", "signature"}` as stored.
    public let signed: JSONValue?
    /// The figures to show: the signed result's when there is one.
    public let figures: JSONObject
    public let standing: Standing

    /// The keys of a stored phase that are not figures.
    static let ownKeys: Set<String> = ["phase", "status", "statusCode", "reason", "signed"]

    public init(_ phase: JSONValue) {
        name = phase["phase"]?.stringValue ?? "?"
        status = phase["status"]?.stringValue ?? "?"
        reason = phase["reason"]?.stringValue
        signed = phase["signed"]
        let visible = (phase.objectValue ?? JSONObject()).filter { !Self.ownKeys.contains($0.key) }
        guard let signed else {
            figures = visible
            if visible.isEmpty && status != ProbeStatus.ok.rawValue { standing = .noFigures }
            else if name == "ping" { standing = .clientMeasured }
            else { standing = .unverified("no signature") }
            return
        }
        guard let result = Self.result(of: signed) else {
            figures = visible
            standing = .unverified("its signed block is not {result, signature}")
            return
        }
        let figures = Self.figures(of: result)
        self.figures = figures
        let resultPhase = result["phase"]?.stringValue ?? "?"
        let differing = Set(visible.keys).union(figures.keys)
            .filter { key in visible[key].map(CanonicalJSON.string) != figures[key].map(CanonicalJSON.string) }.sorted()
        if resultPhase != name {
            standing = .unverified("its signed result is of the \(resultPhase) phase")
        } else if !differing.isEmpty {
            standing = .unverified("\(differing.joined(separator: ", ")) \(differing.count == 1 ? "differs" : "differ") from the signed result")
        } else {
            standing = .signed
        }
    }

    /// A bare `{result, signature}` (no copy beside it).
    public init(signedResult value: JSONValue) {
        let result = Self.result(of: value)
        name = result?["phase"]?.stringValue ?? "result"
        status = ProbeStatus.ok.rawValue
        reason = nil
        signed = value
        figures = result.map(Self.figures) ?? JSONObject()
        standing = result == nil ? .unverified("not {result, signature}") : .signed
    }

    static func result(of signed: JSONValue) -> JSONObject? {
        signed["signature"]?.stringValue == nil ? nil : signed["result"]?.objectValue
    }

    static func figures(of result: JSONObject) -> JSONObject {
        result.filter { ProbePhase.figureKeys.contains($0.key) }
    }

    /// Why an unverified phase is, else nil.
    public var unverifiedBecause: String? {
        if case .unverified(let why) = standing { return why }
        return nil
    }
}
