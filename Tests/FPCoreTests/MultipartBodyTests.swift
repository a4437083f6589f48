import FPCore
import Testing

/// The one multipart reader of the gateway and the sync client.
@Suite struct MultipartBodyTests {
    @Test func partsKeepTheirBytesExactly() throws {
        // Preamble, a JSON part, a binary part ending in CR LF of its own, an empty part, epilogue.
        let binary: [UInt8] = [0, 0x0D, 0x0A, 0xFF, 0x0D, 0x0A]
        let body: [UInt8] = Array("ignored preamble\r\n--b\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n--b\r\nContent-Disposition: attachment; filename=\"x.bin\"\r\n\r\n".utf8)
            + binary + Array("\r\n--b\r\nX-Empty: yes\r\n\r\n\r\n--b--\r\nignored epilogue".utf8)
        let parts = try MultipartBody.parts(body, boundary: "b")
        #expect(parts.count == 3)
        #expect(parts[0] == MultipartBody.Part(headers: ["content-type": "application/json"], body: Array(#"{"a":1}"#.utf8)))
        #expect(parts[1].headers["content-disposition"] == #"attachment; filename="x.bin""#)
        #expect(parts[1].body == binary)
        #expect(parts[2] == MultipartBody.Part(headers: ["x-empty": "yes"], body: []))
    }

    @Test func bareLineFeedsAreReadToo() throws {
        let body = Array("--b\nContent-Type: application/json\n\n{}\n--b\nContent-Type: text/plain\n\nhi\n--b--".utf8)
        let parts = try MultipartBody.parts(body, boundary: "b")
        #expect(parts.map(\.body) == [Array("{}".utf8), Array("hi".utf8)])
        #expect(parts[1].headers["content-type"] == "text/plain")
    }

    @Test func malformedBodiesAreNamed() {
        for (text, words) in [("no delimiter at all", "no part delimited"),
                              ("--b\r\nContent-Type: x\r\n\r\nbody without its end", "not closed by --b--"),
                              ("--b\r\nContent-Type: x", "no header block")] {
            #expect {
                _ = try MultipartBody.parts(Array(text.utf8), boundary: "b")
            } throws: { error in
                "\(error)".contains(words)
            }
        }
    }
}
