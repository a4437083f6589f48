import FPCore

extension Array where Element == BLEScan {
    /// Moves every report of `other` to the end of this array (room reserved
    /// first), leaving in each of its slots a stand-in with nothing to
    /// release, so it can be freed as usual. Moved, not copied: a copy
    /// retains the entry's strings and freeing the array releases them
    /// again, and a replay has 100,000s.
    mutating func append(movingFrom other: inout [BLEScan]) {
        reserveCapacity(count + other.count)
        other.withUnsafeMutableBufferPointer { slots in
            guard let base = slots.baseAddress else { return }
            for i in slots.indices {
                append((base + i).move())
                (base + i).initialize(to: BLEScan.standIn)
            }
        }
    }
}

extension BLEScan {
    /// What a moved-out slot keeps.
    fileprivate static let standIn = BLEScan(address: "", rssi: nil, time: 0)
}
