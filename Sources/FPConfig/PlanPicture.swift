import Foundation

/// A floor-plan picture's kind and size in pixels, read from its header:
/// PNG (IHDR), JPEG (the first start-of-frame marker) or SVG (its viewBox,
/// else width and height in px). Nothing else is a plan fprint can draw.
package struct PlanPicture: Sendable, Equatable {
    package enum Kind: String, Sendable { case png, jpeg, svg }
    package var kind: Kind
    package var width: Double
    package var height: Double

    /// The picture at `path`, or a one-line error naming it: missing (66 by the caller), unreadable, another format.
    package static func read(path: String) throws(ConfigError) -> PlanPicture {
        let data = try Files.read(path)
        guard let picture = parse(data) else {
            throw ConfigError(source: path, "not a PNG, JPEG or SVG picture (or its size cannot be read from it)")
        }
        guard picture.width >= 1, picture.height >= 1 else {
            throw ConfigError(source: path, "the picture is \(Int(picture.width)) × \(Int(picture.height)) pixels: too small to be a plan")
        }
        return picture
    }

    package static func parse(_ data: Data) -> PlanPicture? {
        let bytes = [UInt8](data.prefix(1 << 20))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        return svg(String(decoding: bytes, as: UTF8.self))
    }

    private static func bigEndian(_ b: [UInt8], _ at: Int, _ count: Int) -> Int? {
        guard at + count <= b.count else { return nil }
        return b[at..<(at + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    /// IHDR is the first chunk: width and height are its first 8 bytes.
    private static func png(_ b: [UInt8]) -> PlanPicture? {
        guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8),
              let w = bigEndian(b, 16, 4), let h = bigEndian(b, 20, 4) else { return nil }
        return PlanPicture(kind: .png, width: Double(w), height: Double(h))
    }

    /// Walks the markers to the first SOFn (C0–CF but C4, C8, CC): height, then width.
    private static func jpeg(_ b: [UInt8]) -> PlanPicture? {
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            guard let length = bigEndian(b, i + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let h = bigEndian(b, i + 5, 2), let w = bigEndian(b, i + 7, 2) else { return nil }
                return PlanPicture(kind: .jpeg, width: Double(w), height: Double(h))
            }
            i += 2 + length
        }
        return nil
    }

    /// The root element's viewBox size, else its width and height when they are plain numbers or px.
    private static func svg(_ text: String) -> PlanPicture? {
        guard let start = text.range(of: "<svg") else { return nil }
        let rest = text[start.upperBound...]
        guard let end = rest.firstIndex(of: ">") else { return nil }
        let tag = String(rest[..<end])
        func attribute(_ name: String) -> String? {
            for quote in ["\"", "'"] {
                if let r = tag.range(of: " \(name)=\(quote)"), let close = tag[r.upperBound...].firstIndex(of: Character(quote)) {
                    return String(tag[r.upperBound..<close])
                }
            }
            return nil
        }
        if let box = attribute("viewBox") {
            let parts = box.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
            if parts.count == 4, parts[2] > 0, parts[3] > 0 { return PlanPicture(kind: .svg, width: parts[2], height: parts[3]) }
        }
        func pixels(_ value: String?) -> Double? {
            guard var v = value?.trimmingCharacters(in: .whitespaces) else { return nil }
            if v.hasSuffix("px") { v.removeLast(2) }
            return Double(v)
        }
        guard let w = pixels(attribute("width")), let h = pixels(attribute("height")) else { return nil }
        return PlanPicture(kind: .svg, width: w, height: h)
    }
}
