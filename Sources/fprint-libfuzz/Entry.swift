import Foundation

// libFuzzer's entry points (`make fuzz`, Tests/fuzz/run.sh). libFuzzer brings
// main(); this target has no main.swift, so SwiftPM compiles it as a library
// and the sanitizer build links libFuzzer's. One binary holds every target:
// FPRINT_FUZZ_TARGET names the one a run drives. A target hands the bytes to
// the real parser and ignores what it throws (a refusal is the right answer);
// a trap, an ASan report, a leak or a timeout is a finding.

/// One fuzz target: a parser of outside input and what it is given.
struct FuzzTarget: Sendable {
    var name: String
    var run: @Sendable ([UInt8]) -> Void
}

let allTargets: [FuzzTarget] = replicationTargets + fileTargets + radioTargets + gatewayTargets

let chosenTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["FPRINT_FUZZ_TARGET"] ?? ""
    if let target = allTargets.first(where: { $0.name == name }) { return target }
    let names = allTargets.map(\.name).joined(separator: " ")
    FileHandle.standardError.write(Data("fprint-libfuzz: FPRINT_FUZZ_TARGET=\(name.isEmpty ? "(unset)" : name) is not a target; one of: \(names)\n".utf8))
    exit(64)
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if ProcessInfo.processInfo.environment["FPRINT_FUZZ_LIST"] != nil {
        print(allTargets.map(\.name).joined(separator: "\n"))
        exit(0)
    }
    _ = chosenTarget.name
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    chosenTarget.run(bytes)
    return 0
}

/// Splits an input into `count` pieces at the dictionary's separator line, for
/// targets that read several files or fields at once.
func pieces(_ bytes: [UInt8], _ count: Int) -> [[UInt8]] {
    let separator = Array("\n--8<--\n".utf8)
    var out: [[UInt8]] = [], start = 0, i = 0
    while i + separator.count <= bytes.count, out.count < count - 1 {
        if bytes[i..<i + separator.count].elementsEqual(separator) {
            out.append(Array(bytes[start..<i]))
            i += separator.count
            start = i
        } else {
            i += 1
        }
    }
    out.append(Array(bytes[start...]))
    while out.count < count { out.append([]) }
    return out
}

/// Text of the bytes as the readers that take `String` see it (invalid UTF-8 repaired).
func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
