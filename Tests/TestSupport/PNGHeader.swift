/// The first bytes of a PNG (signature and IHDR chunk) of a given size:
/// all a reader of image sizes looks at, for tests of floor-plan pictures.
public enum PNGHeader {
    public static func bytes(width: UInt32, height: UInt32) -> [UInt8] {
        let be = { (v: UInt32) in [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + be(width) + be(height)
            + [8, 6, 0, 0, 0] + [0, 0, 0, 0]
    }
}
