import ArgumentParser
import FPCore
import Foundation

/// A command whose failures print as one `error:` line and exit with their
/// code (docs/exit-codes.md). Commands write `perform()`; the one `run()` here
/// reports what it throws.
protocol ReportingCommand: AsyncParsableCommand {
    func perform() async throws
    /// Whether Ctrl-C and SIGTERM go through `Interrupts` (every command but
    /// the servers, whose service group stops them gracefully).
    static var catchesInterrupts: Bool { get }
}

extension ReportingCommand {
    static var catchesInterrupts: Bool { true }

    func run() async throws {
        if Self.catchesInterrupts { Interrupts.install() }
        try await reportingFailures { try await perform() }
    }
}

/// Runs a command body, printing any failure as one `error:` line and exiting with its code.
private func reportingFailures<T>(_ body: () async throws -> T) async throws -> T {
    do {
        let result = try await body()
        // Damaged documents were skipped and named; the exit says so last.
        if let damaged = DamageLog.shared.failure() { throw damaged }
        return result
    } catch let f as CommandFailure {
        Terminal.err("error: \(f.description)")
        throw ExitCode(f.status.rawValue)
    } catch let e as StoreError {
        let hint = if case .alreadySynced = e { " (`fprint delete --synced-too` deletes it here and, at the next sync, on the gateway)" } else { "" }
        Terminal.err("error: \(e.description)\(hint)")
        let status: ExitStatus =
            switch e {
            case .notFound: .notFound
            case .ambiguous: .usage
            case .conflict, .alreadySynced, .invalid: .failure
            case .io: .ioError
            }
        throw ExitCode(status.rawValue)
    } catch let d as DamagedDocument {
        Terminal.err("error: \(d.description); `fprint repair` mends or quarantines it")
        throw ExitCode(ExitStatus.ioError.rawValue)
    } catch is CancellationError {
        Terminal.err("interrupted: nothing stored")
        throw ExitCode(ExitStatus.interrupted.rawValue)
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        throw e
    } catch {
        Terminal.err("error: \(error)")
        throw ExitCode(ExitStatus.failure.rawValue)
    }
}
