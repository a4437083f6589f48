/// A positioning method of the train/test evaluation, named as the UJI
/// long-term paper's results are: `knn9` (k nearest, mean position),
/// `wknn3` (weights 1/d), `gk4k12` (Gaussian kernel, σ 4 dB, the 12 likeliest).
package struct HoldoutMethod: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable { case knn, wknn, gk }

    package var kind: Kind
    package var k: Int
    /// dB, the Gaussian kernel's only.
    package var sigma: Double

    package init(_ kind: Kind, k: Int, sigma: Double = 4) {
        self.kind = kind
        self.k = k
        self.sigma = sigma
    }

    package var description: String {
        switch kind {
        case .knn, .wknn: "\(kind.rawValue)\(k)"
        case .gk: "gk\(Self.number(sigma))k\(k)"
        }
    }

    static func number(_ v: Double) -> String { v.rounded() == v && abs(v) < 1e9 ? String(Int(v)) : String(v) }

    /// `knn9`, `wknn3`, `gk4k12` (σ may have a fraction: `gk2.5k8`); nil for anything else.
    package init?(_ text: String) {
        let t = text.lowercased()
        func k(_ s: Substring) -> Int? { Int(s).flatMap { (1...1000).contains($0) ? $0 : nil } }
        if t.hasPrefix("wknn"), let n = k(t.dropFirst(4)) {
            self.init(.wknn, k: n)
        } else if t.hasPrefix("knn"), let n = k(t.dropFirst(3)) {
            self.init(.knn, k: n)
        } else if t.hasPrefix("gk"), let split = t.dropFirst(2).firstIndex(of: "k"),
            let sigma = Double(t[t.index(t.startIndex, offsetBy: 2)..<split]), sigma.isFinite, sigma > 0,
            let n = k(t[t.index(after: split)...])
        {
            self.init(.gk, k: n, sigma: sigma)
        } else {
            return nil
        }
    }
}
