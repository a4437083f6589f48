import FPCore
import Foundation
import Synchronization
import Testing

/// `ReadAhead`: what the thread produces comes out whole and in order, an
/// error comes after what was read before it, and a consumer that stops
/// early does not leave the thread producing.
@Suite struct ReadAheadTests {
    struct Broken: Error, Equatable { let at: Int }

    @Test func everyItemInOrderThenTheEnd() throws {
        let counter = Mutex(0)
        let reading = ReadAhead(depth: 3, name: "test.read-ahead") { () -> Int? in
            counter.withLock { n in
                defer { n += 1 }
                return n < 500 ? n : nil
            }
        }
        var got: [Int] = []
        while let item = try reading.next() { got.append(item) }
        #expect(got == Array(0..<500))
        #expect(try reading.next() == nil)  // the end stays the end
        #expect(counter.withLock { $0 } == 501)  // not called after it answered nil
    }

    @Test func anErrorComesAfterWhatWasReadBeforeIt() {
        let counter = Mutex(0)
        let reading = ReadAhead(name: "test.read-ahead") { () throws -> Int? in
            let n = counter.withLock { n in
                defer { n += 1 }
                return n
            }
            if n == 5 { throw Broken(at: n) }
            return n
        }
        var got: [Int] = []
        #expect(throws: Broken(at: 5)) {
            while let item = try reading.next() { got.append(item) }
        }
        #expect(got == [0, 1, 2, 3, 4])
        #expect(counter.withLock { $0 } == 6)
    }

    /// After `cancel`, `next` hands out what was ready and then the end,
    /// which it reaches only once the thread has stopped: it made at most
    /// `depth` items past the last one taken, and one more in progress.
    @Test func cancelStopsTheThread() throws {
        let counter = Mutex(0)
        let reading = ReadAhead(depth: 2, name: "test.read-ahead") { () -> Int? in
            counter.withLock { n in
                defer { n += 1 }
                return n
            }
        }
        for expected in 0..<3 { #expect(try reading.next() == expected) }
        reading.cancel()
        var rest: [Int] = []
        while let item = try reading.next() { rest.append(item) }
        #expect(rest == Array(3..<(3 + rest.count)))
        let made = counter.withLock { $0 }
        #expect(made <= 3 + 2 + 1)
        #expect(counter.withLock { $0 } == made)  // nothing more once the end was seen
    }
}
