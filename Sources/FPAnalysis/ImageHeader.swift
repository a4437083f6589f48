import Foundation

/// The pixel size and media type of a PNG, JPEG or SVG image, read from its
/// header alone: what a floor-plan picture needs to be placed on a plot (and
/// what `fprint map add` makes a new map's extent of).
package struct ImageHeader: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// `image/png`, `image/jpeg` or `image/svg+xml`.
    package var mediaType: String

    /// nil when the bytes are neither a PNG, a JPEG with a frame header nor an SVG with a size in pixels.
    package init?(_ bytes: [UInt8]) {
        if let png = Self.png(bytes) { self = png } else if let jpeg = Self.jpeg(bytes) { self = jpeg } else if let svg = Self.svg(bytes) {
            self = svg
        } else {
            return nil
        }
    }

    /// What `fprint map add` names the picture's kind by.
    package var kind: String { mediaType == "image/svg+xml" ? "svg" : mediaType == "image/jpeg" ? "jpg" : "png" }

    private init(width: Int, height: Int, mediaType: String) {
        (self.width, self.height, self.mediaType) = (width, height, mediaType)
    }

    /// The signature, then IHDR first: width and height big-endian at 16 and 20.
    private static func png(_ b: [UInt8]) -> ImageHeader? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard b.count >= 24, Array(b[0..<8]) == signature, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = be32(b, 16), height = be32(b, 20)
        guard width > 0, height > 0 else { return nil }
        return ImageHeader(width: width, height: height, mediaType: "image/png")
    }

    /// Whether a JPEG ends: its last end-of-image marker (FF D9) comes after
    /// its last start-of-scan (FF DA). Scan data stuffs every FF with 00, so a
    /// picture cut short in its scan has none there; one in an EXIF thumbnail
    /// comes before the main scan and does not count.
    package static func jpegEnds(_ b: [UInt8]) -> Bool {
        func last(_ marker: UInt8) -> Int? { b.indices.dropLast().last { b[$0] == 0xFF && b[$0 + 1] == marker } }
        guard let end = last(0xD9) else { return false }
        return end > (last(0xDA) ?? -1)
    }

    /// Walks the marker segments from SOI to the first start-of-frame (SOF0–SOF15
    /// but DHT, JPG and DAC), whose payload holds height then width.
    private static func jpeg(_ b: [UInt8]) -> ImageHeader? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 3 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard i + 8 < b.count else { return nil }
                let height = Int(b[i + 5]) << 8 | Int(b[i + 6]), width = Int(b[i + 7]) << 8 | Int(b[i + 8])
                guard width > 0, height > 0 else { return nil }
                return ImageHeader(width: width, height: height, mediaType: "image/jpeg")
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // end, or scan data before any frame header
            i += 2 + length
        }
        return nil
    }

    /// The root element's viewBox size, else its width and height when they
    /// are plain numbers or px (a size in cm or % is no pixel size).
    private static func svg(_ b: [UInt8]) -> ImageHeader? {
        let text = String(decoding: b.prefix(64 << 10), as: UTF8.self)
        guard let start = text.range(of: "<svg"), let end = text[start.upperBound...].firstIndex(of: ">") else { return nil }
        let tag = String(text[start.upperBound..<end])
        func attribute(_ name: String) -> String? {
            for quote in ["\"", "'"] {
                if let r = tag.range(of: " \(name)=\(quote)"), let close = tag[r.upperBound...].firstIndex(of: Character(quote)) {
                    return String(tag[r.upperBound..<close])
                }
            }
            return nil
        }
        func pixels(_ value: String?) -> Double? {
            guard var v = value?.trimmingCharacters(in: .whitespaces) else { return nil }
            if v.hasSuffix("px") { v.removeLast(2) }
            return Double(v)
        }
        var size: (Double, Double)?
        if let box = attribute("viewBox")?.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap({ Double($0) }), box.count == 4 {
            size = (box[2], box[3])
        } else if let w = pixels(attribute("width")), let h = pixels(attribute("height")) {
            size = (w, h)
        }
        // At most PNG's own limit (2³¹ − 1): a larger number, such as 1e300, is no pixel size and no Int.
        let pixelRange = 1...Double(Int32.max)
        guard let (w, h) = size, pixelRange.contains(w.rounded()), pixelRange.contains(h.rounded()) else { return nil }
        return ImageHeader(width: Int(w.rounded()), height: Int(h.rounded()), mediaType: "image/svg+xml")
    }

    private static func be32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }
}
