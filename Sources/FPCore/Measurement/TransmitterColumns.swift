/// The transmitter columns of an imported table, heard or not, in the
/// table's order, as the JSON a document carries (`imported.transmitters`).
/// A fingerprint lists only what it heard, yet the datasets' own methods
/// count every column (a Gaussian kernel scores a column neither side heard
/// too): this is how the evaluator knows them. Runs of numbered names
/// (`WAP001`…`WAP620`) are written as one object `{"prefix": "WAP",
/// "from": 1, "to": 620, "width": 3}` (width 0: no padding); other names as
/// strings. So 620 columns cost ~50 bytes a document.
public enum TransmitterColumns {
    public static func encode(_ names: [String]) -> JSONValue {
        var out: [JSONValue] = []
        var i = 0
        while i < names.count {
            guard let (prefix, first, width) = numbered(names[i]) else {
                out.append(.string(names[i]))
                i += 1
                continue
            }
            var j = i + 1
            while j < names.count, names[j] == format(prefix, first + (j - i), width) { j += 1 }
            if j - i >= 3 {
                out.append(["prefix": .string(prefix), "from": .int(Int64(first)), "to": .int(Int64(first + j - i - 1)),
                            "width": .int(Int64(width))])
            } else {
                out += names[i..<j].map { .string($0) }
            }
            i = j
        }
        return .array(out)
    }

    /// The names back; nil for anything `encode` does not write (or a run of more than 100,000).
    public static func decode(_ value: JSONValue) -> [String]? {
        guard case .array(let items) = value else { return nil }
        var out: [String] = []
        for item in items {
            switch item {
            case .string(let s): out.append(s)
            case .object(let o):
                guard let prefix = o["prefix"]?.stringValue, let from = o["from"]?.intValue, let to = o["to"]?.intValue,
                    let width = o["width"]?.intValue, from >= 0, to >= from, to - from < 100_000, (0...18).contains(width)
                else { return nil }
                for n in from...to { out.append(format(prefix, Int(n), Int(width))) }
            default: return nil
            }
        }
        return out
    }

    /// `WAP001` → ("WAP", 1, 3); `rssi_2` → ("rssi_", 2, 0); nil without trailing digits.
    static func numbered(_ name: String) -> (prefix: String, number: Int, width: Int)? {
        let digits = name.utf8.reversed().prefix { $0 >= 48 && $0 <= 57 }.count
        guard digits > 0, digits <= 9 else { return nil }
        let text = String(name.utf8.suffix(digits))!
        let prefix = String(name.utf8.dropLast(digits))!
        guard let n = Int(text) else { return nil }
        return (prefix, n, text.count > 1 && text.hasPrefix("0") ? text.count : 0)
    }

    static func format(_ prefix: String, _ n: Int, _ width: Int) -> String {
        let digits = String(n)
        return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
