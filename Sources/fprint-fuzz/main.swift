import FPHCI
import FPHCIFuzz
import Foundation

// `make fuzz`: mutation fuzzing of the HCI event, advertising report, AD and
// beacon parsers, seeded by the real captures; also mutates whole btsnoop files.
//   fprint-fuzz [--seconds N] [--seed S] CAPTURE.btsnoop...
var seconds = 120.0
var seed: UInt64 = 1
var files: [String] = []
var it = CommandLine.arguments.dropFirst().makeIterator()
while let a = it.next() {
    switch a {
    case "--seconds": seconds = Double(it.next() ?? "") ?? seconds
    case "--seed": seed = UInt64(it.next() ?? "") ?? seed
    default: files.append(a)
    }
}
var corpus: [[UInt8]] = []
var captures: [[UInt8]] = []
for f in files {
    guard let d = FileManager.default.contents(atPath: f) else {
        FileHandle.standardError.write(Data("fprint-fuzz: cannot read \(f)\n".utf8))
        exit(66)
    }
    captures.append(Array(d))
    corpus += HCIFuzzer.corpus(btsnoop: Array(d))
}
var fuzzer = HCIFuzzer(corpus: corpus, seed: seed)
let start = Date()
var fileRuns = 0
while Date().timeIntervalSince(start) < seconds {
    fuzzer.run(iterations: 10_000)
    // Whole-file mutations: the btsnoop reader must throw or yield records, never trap.
    if var file = captures.randomElement(), file.count > 16 {
        for _ in 0..<8 { file[Int.random(in: 16..<file.count)] = UInt8.random(in: 0...255) }
        if Bool.random() { file.removeLast(Int.random(in: 0..<file.count / 2)) }
        _ = try? BtsnoopFile(bytes: file).records()
        fileRuns += 1
    }
}
let elapsed = Date().timeIntervalSince(start)
print("fprint-fuzz: \(fuzzer.executions) events (\(Int(Double(fuzzer.executions) / elapsed))/s), \(fuzzer.parsedReports) reports parsed, \(fuzzer.rejected) rejected, \(fileRuns) mutated files, \(fuzzer.violations.count) invariant violations, no crash")
for v in fuzzer.violations.prefix(10) { print("violation: \(v)") }
exit(fuzzer.violations.isEmpty ? 0 : 1)
