/// Ranges in a `--method` list, for parameter sweeps: `knn1..15`,
/// `wknn1..15`, `gk2..8k12` (σ 2, 3, … 8 dB, each k 12) and `gk4k1..12`.
/// Ranges are inclusive and step by 1, from the first value up.
extension HoldoutMethod {
    /// Why a term of a method list names no method.
    package struct TermError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// The most methods one range may name: a slip such as `knn1..100000` is a typo, not a sweep.
    package static let rangeLimit = 1000

    /// The methods one term names, in order: a method (`knn9`) or a range (`knn1..15`).
    package static func expand(_ term: String) throws(TermError) -> [HoldoutMethod] {
        if !term.contains("..") {
            guard let method = HoldoutMethod(term) else { throw unknown(term) }
            return [method]
        }
        let t = term.lowercased()
        if let kind = [Kind.wknn, .knn].first(where: { t.hasPrefix($0.rawValue) }) {
            let ks = try values(t.dropFirst(kind.rawValue.count), term: term, whole: true)
            return try ks.map { k throws(TermError) in try checked(HoldoutMethod(kind, k: Int(k)), term) }
        }
        guard t.hasPrefix("gk"), let split = t.dropFirst(2).firstIndex(of: "k") else { throw unknown(term) }
        let sigmas = try values(t[t.index(t.startIndex, offsetBy: 2)..<split], term: term, whole: false)
        let ks = try values(t[t.index(after: split)...], term: term, whole: true)
        guard sigmas.count * ks.count <= rangeLimit else { throw tooMany(term) }
        var out: [HoldoutMethod] = []
        for sigma in sigmas {
            for k in ks { out.append(try checked(HoldoutMethod(.gk, k: Int(k), sigma: sigma), term)) }
        }
        return out
    }

    /// A number, or `a..b` stepping by 1; `whole`: integers only.
    private static func values(_ text: Substring, term: String, whole: Bool) throws(TermError) -> [Double] {
        func parse(_ s: Substring) -> Double? {
            guard let v = Double(s), v.isFinite, !whole || v.rounded() == v, !s.contains("e"), !s.hasPrefix("+") else { return nil }
            return v
        }
        let bounds = text.split(separator: "..", omittingEmptySubsequences: false)
        if bounds.count == 1, let v = parse(text) { return [v] }
        guard bounds.count == 2, let a = parse(bounds[0]), let b = parse(bounds[1]) else {
            throw unknown(term)
        }
        guard a <= b else {
            throw TermError(description: "'\(term)' is an empty range (\(Self.number(a)) > \(Self.number(b))): write the smaller value first")
        }
        guard b - a < Double(rangeLimit) else { throw tooMany(term) }
        return (0...Int((b - a).rounded(.down))).map { a + Double($0) }
    }

    private static func checked(_ method: HoldoutMethod, _ term: String) throws(TermError) -> HoldoutMethod {
        // The single-method parser is the judge of each value (k 1–1000, σ > 0).
        guard let same = HoldoutMethod(method.description), same == method else { throw unknown(term) }
        return method
    }

    private static func unknown(_ term: String) -> TermError {
        TermError(description: "'\(term)' is none of knnK, wknnK, gkSkK (e.g. knn9, wknn3, gk4k12; k 1–1000) "
                  + "nor a range of them (knn1..15, wknn1..15, gk2..8k12, gk4k1..12)")
    }

    private static func tooMany(_ term: String) -> TermError {
        TermError(description: "'\(term)' names more than \(rangeLimit) methods")
    }
}
