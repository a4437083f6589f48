import Glibc

/// Transparent huge pages for a buffer of tens of MB about to be filled: one
/// fault per 2 MiB instead of one per 4 KiB page (a replay's capture, its
/// reports and its document's text took ~30,000 faults). A hint only: where
/// the kernel gives huge pages on request (`madvise` mode, Debian's default)
/// it gives them; elsewhere nothing changes. Room never touched still costs
/// nothing.
public enum HugePages {
    static let size = 2 << 20

    public static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count >= 2 * size else { return }
        // Only whole huge pages inside the buffer.
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(size - 1)
        guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(first, end - start, MADV_HUGEPAGE)
    }

    /// `array.reserveCapacity(capacity)`, its new room advised.
    public static func reserve<T>(_ array: inout [T], _ capacity: Int) {
        array.reserveCapacity(capacity)
        let bytes = MemoryLayout<T>.stride * array.capacity
        guard bytes >= 2 * size else { return }
        array.withUnsafeMutableBufferPointer { elements in
            // The storage runs on past `count` to `capacity`: our own allocation.
            guard let base = elements.baseAddress else { return }
            advise(UnsafeMutableRawBufferPointer(start: base, count: bytes))
        }
    }
}
