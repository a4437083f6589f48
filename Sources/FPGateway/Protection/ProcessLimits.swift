import CMalloc
import Glibc

/// Process-wide settings a long-running server needs on Linux.
enum ProcessLimits {
    /// Raises the open-file limit to the hard limit and returns the limit
    /// in force: every connection is a descriptor.
    @discardableResult
    static func raiseOpenFiles() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, 1 << 20))
    }

    /// Large buffers (request bodies, answers) get their own mappings, which
    /// go back to the kernel when freed. glibc otherwise raises its mmap
    /// threshold after the first large free, and later bodies stay in the
    /// heap as resident memory long after their requests.
    static func returnLargeBuffersToTheKernel() {
        _ = mallopt(M_MMAP_THRESHOLD, 256 << 10)
    }

    /// Gives freed heap memory back (after a large request).
    static func trimHeap() {
        _ = malloc_trim(0)
    }
}
