import CCurl
import Foundation

/// HTTP over libcurl with one reused easy handle, so consecutive requests to
/// the same server share a kept-alive connection (and TLS session).
///
/// - TLS peer and host verification are on unless `insecure` is set.
/// - GET and HEAD follow up to `maxRedirects` redirects, http(s) only; other
///   methods never follow (re-sending a body elsewhere is not safe).
/// - `http_proxy`, `https_proxy` and `no_proxy` are honoured by libcurl itself,
///   except that a loopback host (localhost, 127.0.0.0/8, ::1) is always asked
///   directly.
///
/// Transfers run on the transport's own threads (`CurlWorker`, one easy
/// handle and connection each, started with its first job): a request goes
/// to the first idle one, so requests made one after the other share one
/// kept-alive connection, and requests made at once (a sync's opening
/// reads) go out together, up to `lanes`; past that they queue. `send`
/// suspends its caller until the answer is there, and a cancelled caller
/// stops its transfer within about a second (libcurl's progress callback).
package final class CurlHTTPTransport: BlockingHTTPTransport {
    package let insecure: Bool
    package let userAgent: String
    package let maxRedirects: Int
    private let workers: [CurlWorker]

    package init(insecure: Bool = false, userAgent: String = "fprint", maxRedirects: Int = 5, lanes: Int = 4) {
        self.insecure = insecure
        self.userAgent = userAgent
        self.maxRedirects = maxRedirects
        let settings = CurlSettings(insecure: insecure, userAgent: userAgent, maxRedirects: maxRedirects)
        workers = (0..<max(1, lanes)).map { _ in CurlWorker(settings) }
    }

    deinit { workers.forEach { $0.close() } }

    /// The least busy worker; of equally busy ones the first, whose
    /// connection is the most likely to be open already.
    private var worker: CurlWorker {
        var best = workers[0]
        var bestLoad = best.load
        for candidate in workers.dropFirst() where bestLoad > 0 {
            let load = candidate.load
            if load < bestLoad { (best, bestLoad) = (candidate, load) }
        }
        return best
    }

    package func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        // Malformed requests fail here, without a trip to the thread.
        _ = try CurlEasy.validate(request)
        let shownURL = HTTPError.displayURL(request.url.absoluteString)
        if Task.isCancelled { throw .cancelled(url: shownURL) }
        let holder = JobHolder()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                let job = CurlJob(request) { continuation.resume(returning: $0) }
                holder.set(job)
                worker.submit(job)
            }
        } onCancel: {
            holder.cancel()
        }
        return try result.get()
    }

    /// Waits on the calling thread (for synchronous callers only).
    package func sendBlocking(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        _ = try CurlEasy.validate(request)
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        worker.submit(CurlJob(request) { result in
            outcome.result = result
            done.signal()
        })
        done.wait()
        return try outcome.result!.get()
    }
}

/// The job of one `send`, for its cancellation handler, which may run
/// before the job exists (then the job starts cancelled) or after it.
private final class JobHolder: @unchecked Sendable {
    // @unchecked: both fields are touched only with `lock` held.
    private let lock = NSLock()
    private var job: CurlJob?
    private var cancelled = false

    func set(_ job: CurlJob) {
        lock.lock()
        defer { lock.unlock() }
        self.job = job
        if cancelled { job.abort.set() }
    }

    func cancel() {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        job?.abort.set()
    }
}

/// The outcome of a blocking send, written before the semaphore is signalled
/// and read after it is waited on (which orders the two).
private final class OutcomeBox: @unchecked Sendable {
    var result: Result<HTTPResponse, HTTPError>?
}

/// libcurl is loaded on first use (`CCurl`). A command that will speak HTTP
/// at once (`sync`) starts that loading on another core while it does other
/// work. A thread created during the loading waits for all of it (glibc's
/// TLS lock): started before the first threads of the cooperative pool
/// exist, the loading held them up as long as it saved; started from the
/// pool's first job (`fprint`'s main), it runs beside the argument parsing.
package enum CurlLibrary {
    package static func preload() { fp_curl_preload() }
}
