import Foundation
import Testing

@testable import FPConfig

/// A floor plan's size from its header, for `fprint map add`.
@Suite struct PlanPictureTests {
    @Test func pngJpegAndSvgSizesAreRead() {
        // PNG: the signature, then IHDR's length, type, width and height.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        png += [0, 0, 0x04, 0xB0, 0, 0, 0x02, 0xBC, 8, 2, 0, 0, 0]
        #expect(PlanPicture.parse(Data(png)) == PlanPicture(kind: .png, width: 1200, height: 700))
        // JPEG: SOI, an APP0 segment to skip, then SOF0 (length, precision, height, width).
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0x90, 0x02, 0x58, 0x03]
        #expect(PlanPicture.parse(Data(jpeg)) == PlanPicture(kind: .jpeg, width: 600, height: 400))
        // SVG: the viewBox wins over width and height; px or plain numbers without one.
        #expect(PlanPicture.parse(Data(#"<?xml version="1.0"?><svg width="10cm" viewBox="0 0 800 500">"#.utf8))
            == PlanPicture(kind: .svg, width: 800, height: 500))
        #expect(PlanPicture.parse(Data(#"<svg xmlns="http://www.w3.org/2000/svg" width='640px' height='480'>"#.utf8))
            == PlanPicture(kind: .svg, width: 640, height: 480))
    }

    @Test func anythingElseIsNotAPlan() {
        #expect(PlanPicture.parse(Data("GIF89a".utf8)) == nil)
        #expect(PlanPicture.parse(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0])) == nil)  // cut short
        #expect(PlanPicture.parse(Data([0xFF, 0xD8, 0xFF, 0xD9])) == nil)  // a JPEG with no frame
        #expect(PlanPicture.parse(Data(#"<svg width="10cm" height="5cm">"#.utf8)) == nil)  // no pixel size
    }
}
