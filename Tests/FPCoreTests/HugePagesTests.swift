import FPCore
import Foundation
import Testing

/// `HugePages` is a hint to the kernel: the buffer stays what it was, and
/// where the kernel hands out huge pages on request the filled buffer is
/// backed by them.
@Suite("Huge pages for large buffers")
struct HugePagesTests {
    /// The kernel's mode, e.g. "madvise" (the bracketed word of the sysfs file); nil without THP.
    static var mode: String? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
              let open = text.firstIndex(of: "["), let close = text.firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// Huge pages the kernel has handed out on faults so far, all processes together (/proc/vmstat).
    static func hugePageFaults() throws -> Int {
        let vmstat = try String(contentsOfFile: "/proc/vmstat", encoding: .utf8)
        let line = vmstat.split(separator: "\n").first { $0.hasPrefix("thp_fault_alloc ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    @Test func aReservedArrayKeepsItsElementsAndIsBackedByHugePagesOnceFilled() throws {
        var bytes: [UInt8] = [1, 2, 3]
        HugePages.reserve(&bytes, 16 << 20)
        #expect(bytes == [1, 2, 3])
        #expect(bytes.capacity >= 16 << 20)
        let before = try Self.hugePageFaults()
        for n in 0..<(12 << 20) { bytes.append(UInt8(truncatingIfNeeded: n)) }
        let after = try Self.hugePageFaults()
        #expect(bytes.count == 3 + 12 << 20)
        #expect(bytes[3 + 1000] == UInt8(1000 & 0xFF))
        if let mode = Self.mode, mode == "always" || mode == "madvise" {
            // 12 MiB filled hold at least five whole 2 MiB pages (other processes only add to the count).
            #expect(after - before >= 5, "kernel THP mode \(mode): the filled buffer should take huge pages")
        }
    }

    @Test func smallAndOddBuffersAreLeftAlone() {
        // Below two huge pages, and a start and length on no boundary: nothing to advise, nothing breaks.
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: (5 << 20) + 123, alignment: 1)
        defer { raw.deallocate() }
        HugePages.advise(UnsafeMutableRawBufferPointer(rebasing: raw[7..<(1 << 20)]))
        HugePages.advise(UnsafeMutableRawBufferPointer(rebasing: raw[7...]))
        raw.initializeMemory(as: UInt8.self, repeating: 0xAB)
        #expect(raw.allSatisfy { $0 == 0xAB })
        var empty: [Int] = []
        HugePages.reserve(&empty, 0)
        #expect(empty.isEmpty)
    }
}
