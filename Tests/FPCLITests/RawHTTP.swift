import Foundation
import Testing

/// Linux process figures from /proc.
enum ProcStatus {
    /// Peak resident memory (VmHWM) in MB.
    static func peakRSSMB(_ pid: Int32) -> Double? { field(pid, "VmHWM:").map { $0 / 1024 } }
    static func rssMB(_ pid: Int32) -> Double? { field(pid, "VmRSS:").map { $0 / 1024 } }

    private static func field(_ pid: Int32, _ name: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Double(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        }
        return nil
    }

    /// User + system CPU seconds used so far.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Raises this process's open-file limit to the hard limit.
    static func raiseOpenFiles() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
