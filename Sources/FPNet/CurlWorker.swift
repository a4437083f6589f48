import Foundation

/// One request waiting for, or in, its transfer.
final class CurlJob: Sendable {
    let request: HTTPRequest
    let abort = CurlAbort()
    /// Called once, on the worker's thread, with the outcome.
    let finish: @Sendable (Result<HTTPResponse, HTTPError>) -> Void

    init(_ request: HTTPRequest, finish: @escaping @Sendable (Result<HTTPResponse, HTTPError>) -> Void) {
        self.request = request
        self.finish = finish
    }
}

/// A thread of its own running one transport's transfers in order, so a
/// waiting `curl_easy_perform` never holds a thread of Swift's cooperative
/// pool (two on a two-core machine, shared by every task). One thread and
/// one easy handle per transport keep the connection reuse a single handle
/// gives. The thread starts with the first job and ends when the transport
/// goes, after the jobs already queued.
final class CurlWorker: @unchecked Sendable {
    // @unchecked: `jobs`, `closing`, `started` and `unfinished` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [CurlJob] = []
    private var closing = false
    private var started = false
    private var unfinished = 0
    private let settings: CurlSettings

    init(_ settings: CurlSettings) { self.settings = settings }

    /// Jobs queued or in transfer.
    var load: Int {
        condition.lock()
        defer { condition.unlock() }
        return unfinished
    }

    func submit(_ job: CurlJob) {
        condition.lock()
        defer { condition.unlock() }
        jobs.append(job)
        unfinished += 1
        if !started {
            started = true
            // The thread holds the worker until it ends (`close`).
            let thread = Thread { [self] in run() }
            thread.name = "fprint.curl"
            thread.start()
        }
        condition.signal()
    }

    /// Lets the thread end once its queue is empty.
    func close() {
        condition.lock()
        closing = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        let easy = CurlEasy(settings)
        while let job = next() {
            let result: Result<HTTPResponse, HTTPError>
            do throws(HTTPError) {
                result = .success(try easy.perform(job.request, abort: job.abort))
            } catch {
                result = .failure(error)
            }
            condition.lock()
            unfinished -= 1
            condition.unlock()
            job.finish(result)
        }
    }

    private func next() -> CurlJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closing { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
