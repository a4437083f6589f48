import ArgumentParser
import Foundation
import Synchronization

/// Ctrl-C and SIGTERM for the whole process, caught from the start of every
/// command (`install`) until it ends.
///
/// What a signal does depends on the phase the command is in:
/// - inside `cancellable` (countdown, recording, a transfer): it cancels that
///   work, which unwinds with CancellationError and stores nothing;
/// - inside `finishing` (storing what was recorded): the store goes on, a
///   line says so, and the command exits 130 once it is done;
/// - anywhere else: the command leaves at once with 130 (nothing was in hand);
/// - a second signal, in any phase, leaves at once.
///
/// Why one router for the process: before, each phase installed libdispatch
/// signal sources (with the signals set to SIG_IGN) and removed them at its
/// end. libdispatch takes its signalfd away asynchronously, so the removal of
/// a walk's countdown sources undid the walk's own: both signals stayed
/// ignored and Ctrl-C was lost until the walk ended (SigIgn 0x1005006).
/// Here the handlers are installed once with sigaction and never removed, and
/// a caught signal (unlike an ignored one) is reset at exec, so the programs
/// fprint runs (ping, mmcli) stop at Ctrl-C as they should.
enum Interrupts {
    /// Catches SIGINT and SIGTERM from now on. Idempotent.
    static func install() { _ = SignalRouter.shared }

    /// Runs work that Ctrl-C or SIGTERM cancels. A signal that came in a
    /// phase before (none left the process alive) cancels it at once.
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let id = SignalRouter.shared.enter(.cancel { task.cancel() })
        defer { SignalRouter.shared.leave(id) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Runs `body` to its end whatever signal comes (storing a recording is
    /// never cut by the first Ctrl-C: `note` says what is being kept). A
    /// signal that came meanwhile is honoured afterwards: the enclosing
    /// `cancellable` work, if any, was cancelled and unwinds by itself;
    /// without one, exit 130.
    static func finishing<T>(note: String, _ body: () throws -> T) throws -> T {
        let id = SignalRouter.shared.enter(.finish(note: note))
        // On a terminal the phase shows: storing a long walk takes a moment.
        if Terminal.stderrIsTTY { Terminal.status(note + "…") }
        let result = Result(catching: body)
        if Terminal.stderrIsTTY { Terminal.endStatusIfOpen() }
        let enclosed = SignalRouter.shared.leave(id)
        let value = try result.get()
        if SignalRouter.shared.signalsReceived > 0, !enclosed {
            Terminal.err("interrupted: \(note) was finished before stopping")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        return value
    }

    /// Whether Ctrl-C or SIGTERM came (long jobs ask between their steps).
    static var requested: Bool { SignalRouter.shared.signalsReceived > 0 }

    /// Runs `body` with signals recorded only (`requested`), `note` said once.
    static func stoppingBetweenSteps<T>(note: String, _ body: () throws -> T) rethrows -> T {
        let id = SignalRouter.shared.enter(.flag(note: note))
        defer { SignalRouter.shared.leave(id) }
        return try body()
    }
}

/// The process's one SIGINT/SIGTERM handler and what each phase wants done.
private final class SignalRouter: Sendable {
    enum Phase: Sendable {
        case cancel(@Sendable () -> Void)
        case finish(note: String)
        case flag(note: String)
    }

    static let shared = SignalRouter()

    private struct State {
        var phases: [Int: Phase] = [:]
        var nextID = 0
        var received = 0
    }

    private let state = Mutex(State())

    private init() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }  // no pipe: the default action stays
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // not handed to the programs fprint runs
        signalPipeWrite.store(fds[1], ordering: .releasing)
        let readEnd = fds[0]
        let reader = Thread { [self] in
            // This thread takes the signals even where a parent handed down a
            // blocked mask (it survives exec).
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 { deliver() } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
        reader.name = "fprint-signals"
        reader.start()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe: one byte into the pipe; the thread above acts.
            let saved = errno
            var byte: UInt8 = 1
            _ = write(signalPipeWrite.load(ordering: .acquiring), &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    var signalsReceived: Int { state.withLock { $0.received } }

    func enter(_ phase: Phase) -> Int {
        let (id, cancelNow) = state.withLock { s -> (Int, Bool) in
            s.nextID += 1
            s.phases[s.nextID] = phase
            return (s.nextID, s.received > 0)
        }
        if cancelNow, case .cancel(let cancel) = phase { cancel() }
        return id
    }

    /// Ends a phase; whether cancellable work still encloses it.
    @discardableResult
    func leave(_ id: Int) -> Bool {
        state.withLock { s in
            s.phases[id] = nil
            return s.phases.values.contains { if case .cancel = $0 { true } else { false } }
        }
    }

    private func deliver() {
        let (received, phases) = state.withLock { s -> (Int, [Phase]) in
            s.received += 1
            return (s.received, s.phases.sorted { $0.key < $1.key }.map(\.value))
        }
        if received > 1 || phases.isEmpty {
            Terminal.err(received > 1 ? "interrupted again: leaving now" : "interrupted: nothing stored")
            _exit(ExitStatus.interrupted.rawValue)
        }
        for phase in phases {
            switch phase {
            case .cancel(let cancel): cancel()
            case .finish(let note): Terminal.err("finishing first: \(note) (Ctrl-C again leaves without it)")
            case .flag(let note): Terminal.err(note)
            }
        }
    }
}

/// Where the signal handler writes; set once before the handler is installed.
private let signalPipeWrite = Atomic<Int32>(-1)
