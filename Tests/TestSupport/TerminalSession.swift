import Foundation

/// A program on a real pseudo-terminal, as a user runs it: its stdin, stdout
/// and stderr are the terminal, it leads a session of its own with that
/// terminal as its controlling one, and typing Ctrl-C (byte 0x03) makes the
/// kernel's line discipline send SIGINT to it, as a keyboard does. Its width
/// is set like a terminal window's.
public final class TerminalSession: Sendable {
    public let pid: pid_t
    private let master: Int32
    private let received = ReceivedBytes()
    private let exit = Handover<Int32>()
    /// The terminal's end of output: every byte the program wrote is read.
    private let drained = Handover<Bool>()
    /// Actions run on the reader thread the moment their text appears.
    private let triggers = Triggers()

    /// Starts `executable` with `arguments` on a terminal `columns` wide, in
    /// `directory`, with exactly `environment`.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], directory: String,
                columns: UInt16 = 80, rows: UInt16 = 24) throws {
        // posix_openpt and friends are not exported to Swift: the Linux
        // ioctls they wrap (devpts needs no grantpt).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw TerminalError("no pseudo-terminal: errno \(errno)") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430  // _IOW('T', 0x31, int), _IOR('T', 0x30, unsigned)
        guard ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
            close(master)
            throw TerminalError("pseudo-terminal setup: errno \(errno)")
        }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (glibc runs it before the file actions): the
        // terminal becomes the new session's controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A clean start: no signal blocked or ignored because the test runner's were.
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc), not exported to Swift
        posix_spawnattr_setflags(&attributes, Int16(setsid | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // GNU env changes the directory (posix_spawn has no portable chdir).
        let argv = ["/usr/bin/env", "-C", directory, executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let status = withCStrings(argv) { cArgv in
            withCStrings(envp) { cEnvp in posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, cArgv, cEnvp) }
        }
        guard status == 0 else {
            close(master)
            throw TerminalError("posix_spawn: \(status)")
        }
        self.pid = pid
        self.master = master

        let received = self.received, drained = self.drained, triggers = self.triggers
        let reader = Thread {
            defer { drained.fulfil(true) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(master, &buffer, buffer.count)
                if n > 0 {
                    received.append(Data(buffer[0..<n]))
                    triggers.fire(String(decoding: received.value, as: UTF8.self))
                } else if n < 0, errno == EINTR { continue } else { break }
            }
        }
        reader.name = "pty-reader"
        reader.start()
        let exit = self.exit, child = pid
        let waiter = Thread {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
            // As a shell tells it: the exit code, or 128 + the signal that ended it.
            exit.fulfil(status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
        }
        waiter.name = "pty-waiter"
        waiter.start()
    }

    deinit {
        kill(pid, SIGKILL)
        close(master)
    }

    /// Types `text` on the keyboard. Fails loudly if the terminal is not
    /// ours any more or the bytes do not go in.
    public func type(_ text: String) throws {
        var link = [CChar](repeating: 0, count: 256)
        let length = readlink("/proc/self/fd/\(master)", &link, link.count - 1)
        let target = length > 0 ? String(decoding: link[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        guard target == "/dev/ptmx" || target.hasPrefix("/dev/pts/ptmx") else {
            throw TerminalError("descriptor \(master) is \(target) now, not the terminal's master")
        }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(master, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n } else if n < 0, errno == EINTR || errno == EAGAIN { usleep(1000) } else {
                throw TerminalError("typing on the terminal: write returned \(n), errno \(errno)")
            }
        }
    }

    /// Ctrl-C: the terminal sends SIGINT to the program (ISIG, VINTR).
    public func pressCtrlC() throws { try type("\u{03}") }

    /// Runs `action` once, on the thread that reads the terminal, as soon as
    /// `text` appears (at once if it has). What must happen within a phase
    /// of the program (take a lock, type Ctrl-C) is done there: a test task
    /// waits its turn on Swift's cooperative pool, seconds on a busy machine.
    public func when(_ text: String, _ action: @escaping @Sendable (TerminalSession) -> Void) {
        triggers.add(text) { [unowned self] in action(self) }
        triggers.fire(transcript)
    }

    /// Everything the program wrote to the terminal so far.
    public var transcript: String { String(decoding: received.value, as: UTF8.self) }

    /// The transcript as rows: each \r rewrite and \n a row of its own,
    /// escape sequences (erase, cursor moves) removed.
    public var rows: [String] {
        let plain = transcript.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
        return plain.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            .map(String.init)
    }

    /// Waits until the transcript satisfies `condition`; false if the program
    /// ended first or `limit` passed (a limit only against hanging forever:
    /// tests assert what happened, not how fast).
    public func waitFor(limit: Duration = .seconds(180), _ condition: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition(transcript) { return true }
            if exit.isFulfilled { return condition(transcript) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Waits for the text to appear on the terminal.
    public func waitFor(_ text: String, limit: Duration = .seconds(180)) async -> Bool {
        await waitFor(limit: limit) { $0.contains(text) }
    }

    /// The exit status, as a shell reports it (128 + N when signal N ended
    /// it), once all the program wrote has been read.
    public func exitStatus() async -> Int32 {
        let status = await exit.value()
        _ = await drained.value()
        return status
    }

    /// Whether the program has ended.
    public var hasExited: Bool { exit.isFulfilled }
}

public struct TerminalError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A NULL-terminated C array of C strings, for the length of `body`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for p in pointers { free(p) } }
    return body(pointers)
}

/// Texts to watch for and what to do when each appears, once.
private final class Triggers: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [(text: String, action: @Sendable () -> Void)] = []  // guarded by `lock`

    func add(_ text: String, _ action: @escaping @Sendable () -> Void) {
        lock.withLock { pending.append((text, action)) }
    }

    func fire(_ transcript: String) {
        let due: [@Sendable () -> Void] = lock.withLock {
            let ready = pending.filter { transcript.contains($0.text) }
            pending.removeAll { transcript.contains($0.text) }
            return ready.map(\.action)
        }
        for action in due { action() }
    }
}
