import CZlib
import Foundation

/// A decoded 8-bit RGB or RGBA PNG (what rsvg-convert writes), for comparing
/// rendered plots with reference images pixel by pixel.
struct PNGImage {
    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let channels: Int
    let pixels: [UInt8]

    struct DecodeError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw DecodeError(description: "not a PNG") }
        var at = 8, header: [UInt8] = [], compressed: [UInt8] = []
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        while at + 8 <= bytes.count {
            let length = be32(at), type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            guard at + 12 + length <= bytes.count else { throw DecodeError(description: "chunk \(type) runs past the end") }
            let body = Array(bytes[at + 8..<at + 8 + length])
            if type == "IHDR" { header = body } else if type == "IDAT" { compressed += body } else if type == "IEND" { break }
            at += 12 + length
        }
        guard header.count == 13 else { throw DecodeError(description: "no IHDR") }
        width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        guard header[8] == 8, header[9] == 2 || header[9] == 6, header[12] == 0 else {
            throw DecodeError(description: "only 8-bit RGB/RGBA, not interlaced (depth \(header[8]), colour type \(header[9]))")
        }
        channels = header[9] == 6 ? 4 : 3
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var size = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { uncompress(out.baseAddress, &size, $0.baseAddress, uLong($0.count)) }
        }
        guard status == Z_OK, Int(size) == raw.count else { throw DecodeError(description: "inflate failed (\(status))") }
        // Undo each row's filter (PNG spec §9).
        var out = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            for i in 0..<stride {
                let x = raw[row * (stride + 1) + 1 + i]
                let a = i >= channels ? Int(out[row * stride + i - channels]) : 0
                let b = row > 0 ? Int(out[(row - 1) * stride + i]) : 0
                let c = row > 0 && i >= channels ? Int(out[(row - 1) * stride + i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw DecodeError(description: "unknown filter \(filter) in row \(row)")
                }
                out[row * stride + i] = UInt8(truncatingIfNeeded: Int(x) + predictor)
            }
        }
        pixels = out
    }

    /// The RGB of one pixel.
    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * channels
        return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
    }
}
