import FPCore

extension Array where Element == BLEScan {
    /// Hands each report of `range` to `take` without copying it: a copy
    /// retains the entry's strings and freeing the array releases them again,
    /// and a replay has 100,000s. Each leaves behind a stand-in with its time
    /// and nothing to release, so the array stays whole and can be read for
    /// times or freed as usual.
    mutating func moveOut(_ range: Range<Int>, to take: (consuming BLEScan) -> Void) {
        withUnsafeMutableBufferPointer { buffer in
            for i in range {
                let slot = buffer.baseAddress! + i
                let scan = slot.move()
                slot.initialize(to: BLEScan(address: "", rssi: nil, time: scan.time))
                take(scan)
            }
        }
    }
}
