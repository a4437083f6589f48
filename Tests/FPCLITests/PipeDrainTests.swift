import Foundation
import FPTestSupport
import Testing

/// The drains that read every child's output in the suite.
@Suite struct PipeDrainTests {
    @Test func aDrainGetsEveryByteOfAChattyChild() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/head")
        process.arguments = ["-c", "3000000", "/dev/zero"]
        let out = Pipe()
        process.standardOutput = out
        let exit = try await process.startAwaitingExit()
        let drain = PipeDrain(out.fileHandleForReading, name: "chatty")
        #expect(await exit.value() == 0)
        let data = await drain.data()
        #expect(data.count == 3_000_000)
        #expect(data.allSatisfy { $0 == 0 })
    }

    /// A descriptor gone from under the drain ends its reading with a line
    /// on stderr, where `availableData` ended the whole test process.
    @Test func aClosedDescriptorEndsTheDrainInsteadOfTheSuite() {
        // Above any descriptor this process can hold: never open, never reused.
        let gone = FileHandle(fileDescriptor: 900_000, closeOnDealloc: false)
        var chunks = 0
        readToEnd(gone, name: "gone") { _ in chunks += 1 }
        #expect(chunks == 0)
    }
}
