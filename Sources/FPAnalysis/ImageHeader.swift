/// The pixel size and media type of a PNG or JPEG image, read from its
/// header alone: what a floor-plan picture needs to be placed on a plot.
package struct ImageHeader: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// `image/png` or `image/jpeg`.
    package var mediaType: String

    /// nil when the bytes are neither a PNG nor a JPEG with a frame header.
    package init?(_ bytes: [UInt8]) {
        if let png = Self.png(bytes) { self = png } else if let jpeg = Self.jpeg(bytes) { self = jpeg } else { return nil }
    }

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

    private static func be32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
    }
}
