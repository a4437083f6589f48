import FPAnalysis
import FPTestSupport
import Testing

/// The size and type of a floor-plan picture, from its header alone.
@Suite struct ImageHeaderTests {
    static func png(width: UInt32, height: UInt32) -> [UInt8] { PNGHeader.bytes(width: width, height: height) }

    /// SOI, a JFIF APP0, a comment holding 0xFF bytes, then a baseline frame header.
    static func jpeg(frame marker: UInt8 = 0xC0, width: Int, height: Int) -> [UInt8] {
        let app0: [UInt8] = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x06, 0xFF, 0xC0, 0xFF, 0xD9]
        let frame: [UInt8] = [0xFF, marker, 0x00, 0x11, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
                              UInt8(width & 0xFF), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return [0xFF, 0xD8] + app0 + comment + frame + [0xFF, 0xD9]
    }

    @Test func aPNGsSizeComesFromItsIHDR() {
        #expect(ImageHeader(Self.png(width: 450, height: 600)) == ImageHeader(Self.png(width: 450, height: 600)))
        let header = ImageHeader(Self.png(width: 70_000, height: 3))
        #expect(header?.width == 70_000 && header?.height == 3 && header?.mediaType == "image/png")
    }

    @Test func aJPEGsSizeComesFromItsFrameHeaderNotFromBytesThatLookLikeOne() {
        // The comment's FF C0 is payload, skipped by its segment length.
        let baseline = ImageHeader(Self.jpeg(width: 1024, height: 768))
        #expect(baseline?.width == 1024 && baseline?.height == 768 && baseline?.mediaType == "image/jpeg")
        let progressive = ImageHeader(Self.jpeg(frame: 0xC2, width: 3, height: 65_535))
        #expect(progressive?.width == 3 && progressive?.height == 65_535)
        // DHT (C4) has a C-range marker but is no frame header.
        #expect(ImageHeader(Self.jpeg(frame: 0xC4, width: 10, height: 10)) == nil)
    }

    /// An SVG's viewBox wins over its width and height; px or plain numbers without one.
    @Test func anSVGsSizeComesFromItsViewBoxOrPixelSize() {
        let boxed = ImageHeader(Array(#"<?xml version="1.0"?><svg width="10cm" viewBox="0 0 800 500">"#.utf8))
        #expect(boxed?.width == 800 && boxed?.height == 500 && boxed?.mediaType == "image/svg+xml" && boxed?.kind == "svg")
        let sized = ImageHeader(Array(#"<svg xmlns="http://www.w3.org/2000/svg" width='640px' height='480'>"#.utf8))
        #expect(sized?.width == 640 && sized?.height == 480)
        #expect(ImageHeader(Array(#"<svg width="10cm" height="5cm">"#.utf8)) == nil)  // no pixel size
    }

    @Test func anythingElseIsNoPicture() {
        #expect(ImageHeader([]) == nil)
        #expect(ImageHeader(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == nil)
        #expect(ImageHeader(Array(Self.png(width: 450, height: 600).prefix(20))) == nil)  // cut inside IHDR
        #expect(ImageHeader(Self.png(width: 0, height: 600)) == nil)
        #expect(ImageHeader(Array(Self.jpeg(width: 10, height: 10).prefix(30))) == nil)  // cut before the frame
        #expect(ImageHeader(Self.jpeg(width: 0, height: 10)) == nil)
    }

    /// A size no Int holds (an uploaded floor plan's, say) is no picture; it
    /// trapped converting 1e300 to Int (found writing `make fuzz`'s image target).
    @Test func anSVGSizeBeyondPixelsIsNoPictureNotATrap() {
        #expect(ImageHeader(Array(#"<svg viewBox="0 0 1e300 5">"#.utf8)) == nil)
        #expect(ImageHeader(Array(#"<svg width="5" height="1e19px">"#.utf8)) == nil)
        #expect(ImageHeader(Array(#"<svg viewBox="0 0 2147483648 5">"#.utf8)) == nil)
        let largest = ImageHeader(Array(#"<svg viewBox="0 0 2147483647 1">"#.utf8))
        #expect(largest?.width == 2_147_483_647 && largest?.height == 1)
    }
}
