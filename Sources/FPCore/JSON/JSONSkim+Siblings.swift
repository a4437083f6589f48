/// The members of the previous object in an array, kept so the next
/// object's members can be compared with them byte for byte. List entries
/// (BLE reports, Wi-Fi cells) repeat most of their members: the address,
/// the beacon object, the event type. Bytes equal to members read whole,
/// valid and in order, are those members again (a value's text decides
/// where it ends), so one compare replaces reading them.
///
/// Two fixed halves of one allocation, swapped when an object ends: no
/// reference counting or copying per member. An object's members past
/// `capacity` are not kept (they are read as usual). Members are plain
/// ranges and flags: they are overwritten and freed, never deinitialised.
struct SiblingMembers<Member: RepeatableMember>: ~Copyable {
    static var capacity: Int { 32 }

    private var storage: UnsafeMutablePointer<Member>?
    private let isKept: Bool
    private var previousBase = 0
    private var previousCount = 0
    private var currentCount = 0
    private var currentBase: Int { Self.capacity - previousBase }

    /// `kept` false: an object outside an array, nothing to keep.
    init(kept: Bool) { isKept = kept }

    deinit { storage?.deallocate() }

    /// The previous object's members; empty when it was not kept.
    var previous: UnsafeBufferPointer<Member> {
        UnsafeBufferPointer(start: storage.map { $0 + previousBase }, count: previousCount)
    }

    mutating func startObject() {
        if isKept, storage == nil { storage = .allocate(capacity: 2 * Self.capacity) }
        currentCount = 0
    }

    mutating func record(_ member: Member) {
        guard let storage, currentCount < Self.capacity else { return }
        (storage + currentBase + currentCount).initialize(to: member)
        currentCount += 1
    }

    /// Keeps the object just read as the one to compare with, or forgets
    /// it (`keep` false: its text was not canonical).
    mutating func endObject(keep: Bool) {
        if keep {
            previousBase = currentBase
            previousCount = currentCount
        } else {
            previousCount = 0
        }
    }
}

/// A member read before, whose text a later one may repeat.
protocol RepeatableMember {
    /// From the key's opening quote to the end of the value.
    var text: Range<Int> { get }
    /// How many bytes of `text` are the key: its quotes and the colon too.
    var keyLength: Int { get }
    /// The same member moved by `offset` bytes.
    func shifted(by offset: Int) -> Self
}

/// A member the skim read: its text and its key's bytes (no quotes).
struct SkimmedMember: RepeatableMember {
    var text: Range<Int>
    var key: Range<Int>

    var keyLength: Int { key.count + 3 }

    func shifted(by offset: Int) -> SkimmedMember { SkimmedMember(text: text.shifted(by: offset), key: key.shifted(by: offset)) }
}

extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}

extension JSONSkim.Reader {
    /// What the text at `i` repeats of `earlier`'s members from `first` on:
    /// `run` whole members, byte for byte and each with the delimiter after
    /// it (`,` or `}`: the delimiter shows a number ended where the earlier
    /// one did, `-6` is not `-63`); when none, whether the next member's key
    /// is the same (`sameKey`: only its value differs, as a report's RSSI
    /// and time do). `earlier` are one object's members, in order.
    func repeated<Member: RepeatableMember>(_ earlier: UnsafeBufferPointer<Member>, from first: Int)
        -> (run: Int, sameKey: Bool)
    {
        let start = earlier[first].text.lowerBound
        let objectEnd = earlier[earlier.count - 1].text.upperBound + 1
        let same = commonPrefix(i, start, limit: Swift.min(end - i, objectEnd - start))
        var k = first
        while k < earlier.count, earlier[k].text.upperBound - start < same { k += 1 }
        return (k - first, earlier[first].keyLength <= same)
    }

    /// Records at `i` the run of `earlier`'s members `repeated` found,
    /// moves past it, and returns the first and last of them as recorded.
    mutating func passRun<Member: RepeatableMember>(_ run: Int, of earlier: UnsafeBufferPointer<Member>, from first: Int,
                                                    into siblings: inout SiblingMembers<Member>) -> (first: Member, last: Member) {
        let shift = i - earlier[first].text.lowerBound
        for k in first..<(first + run) { siblings.record(earlier[k].shifted(by: shift)) }
        let last = earlier[first + run - 1].shifted(by: shift)
        i = last.text.upperBound
        return (earlier[first].shifted(by: shift), last)
    }

    /// How many bytes from `a` equal those from `b`, up to `limit`; eight
    /// compared at a time.
    func commonPrefix(_ a: Int, _ b: Int, limit: Int) -> Int {
        let base = UnsafeRawPointer(bytes.baseAddress!)
        var n = 0
        while n + 8 <= limit {
            let x = UInt64(littleEndian: (base + a + n).loadUnaligned(as: UInt64.self))
            let y = UInt64(littleEndian: (base + b + n).loadUnaligned(as: UInt64.self))
            if x != y { return n + (x ^ y).trailingZeroBitCount >> 3 }
            n += 8
        }
        while n < limit, bytes[a + n] == bytes[b + n] { n += 1 }
        return n
    }
}
