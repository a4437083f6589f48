import FPCore
import Foundation
import Glibc
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

    /// Page faults on which the kernel tried a huge page so far, all processes
    /// together (/proc/vmstat: those that got one, and those that fell back to
    /// small pages because no 2 MiB of free memory lay together).
    static func hugePageAttempts() throws -> Int {
        let vmstat = try String(contentsOfFile: "/proc/vmstat", encoding: .utf8)
        return vmstat.split(separator: "\n").reduce(0) { sum, line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, fields[0] == "thp_fault_alloc" || fields[0] == "thp_fault_fallback" else { return sum }
            return sum + (Int(fields[1]) ?? 0)
        }
    }

    @Test func anAdvisedBufferTakesHugePagesAsItIsFilled() throws {
        // A fresh mapping, as a replay's buffers are (it sets malloc's mmap
        // threshold low); heap memory an earlier test touched would fault nothing.
        let length = 16 << 20
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(mapped == MAP_FAILED ? nil : mapped)
        defer { munmap(base, length) }
        let buffer = UnsafeMutableRawBufferPointer(start: base, count: length)
        HugePages.advise(buffer)
        let before = try Self.hugePageAttempts()
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAB)
        let after = try Self.hugePageAttempts()
        #expect(buffer.allSatisfy { $0 == 0xAB })
        if let mode = Self.mode, mode == "always" || mode == "madvise" {
            // 16 MiB hold at least seven whole 2 MiB pages (other processes only add to the count).
            #expect(after - before >= 7, "kernel THP mode \(mode): filling the buffer should ask for huge pages")
        }
    }

    @Test func aReservedArrayKeepsItsElements() {
        var bytes: [UInt8] = [1, 2, 3]
        HugePages.reserve(&bytes, 16 << 20)
        #expect(bytes == [1, 2, 3])
        #expect(bytes.capacity >= 16 << 20)
        for n in 0..<(12 << 20) { bytes.append(UInt8(truncatingIfNeeded: n)) }
        #expect(bytes.count == 3 + 12 << 20)
        #expect(bytes[3 + 1000] == UInt8(1000 & 0xFF))
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
