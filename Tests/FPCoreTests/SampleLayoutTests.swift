import FPCore
import Testing

/// A sample is as large as its largest inline case: the rare ones are boxed
/// so that a replay's 100,000s of BLE samples take a BLE entry's size each.
@Test func aSampleIsNoLargerThanABLEEntryAndAWord() {
    #expect(MemoryLayout<Sample>.stride <= MemoryLayout<BLEScan>.stride + 8,
            "Sample \(MemoryLayout<Sample>.stride) bytes, BLEScan \(MemoryLayout<BLEScan>.stride)")
}
