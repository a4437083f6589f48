import Foundation

/// `transform` of each element, computed on every core; order is kept. The
/// canonical form and revision hash of a batch's documents (a millisecond or
/// more each for a busy walk window) are independent, and the write lock is
/// taken only after them.
public func concurrentMap<T: Sendable, U: Sendable>(_ items: [T], _ transform: @Sendable (T) -> U) -> [U] {
    guard items.count > 1 else { return items.map(transform) }
    return [U](unsafeUninitializedCapacity: items.count) { buffer, initialized in
        let base = UnsafeSendablePointer(buffer.baseAddress!)
        items.withUnsafeBufferPointer { input in
            let source = UnsafeSendableBuffer(input)
            DispatchQueue.concurrentPerform(iterations: items.count) { i in
                (base.pointer + i).initialize(to: transform(source.buffer[i]))
            }
        }
        initialized = items.count
    }
}

/// Each iteration of `concurrentMap` writes only its own slot.
private struct UnsafeSendablePointer<U>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<U>
    init(_ pointer: UnsafeMutablePointer<U>) { self.pointer = pointer }
}

private struct UnsafeSendableBuffer<T>: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<T>
    init(_ buffer: UnsafeBufferPointer<T>) { self.buffer = buffer }
}

/// `first` and `second` side by side on two cores (passes over tens of MB
/// that need nothing from each other); returns both results.
public func inParallel<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            let pair = ParallelPair(first, second)
            DispatchQueue.concurrentPerform(iterations: 2) { pair.run($0) }
            return (pair.a!, pair.b!)
        }
    }
}

/// Each iteration of `inParallel` runs one closure and writes only its own
/// result; `concurrentPerform` returns after both.
private final class ParallelPair<A, B>: @unchecked Sendable {
    let first: () -> A
    let second: () -> B
    var a: A?
    var b: B?

    init(_ first: @escaping () -> A, _ second: @escaping () -> B) {
        self.first = first
        self.second = second
    }

    func run(_ i: Int) {
        if i == 0 { a = first() } else { b = second() }
    }
}
