import Foundation

/// The outcome of running a command-line tool.
package struct CommandResult: Sendable, Equatable {
    package var status: Int32
    package var stdout: String
    package var stderr: String
    package var timedOut: Bool

    package init(status: Int32, stdout: String, stderr: String = "", timedOut: Bool = false) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.timedOut = timedOut
    }

    /// The first non-empty line of stderr (tools put their reason there), for one-line messages.
    package var errorLine: String {
        let lines = (stderr + "\n" + stdout).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.first { !$0.isEmpty } ?? "exit status \(status)"
    }
}

/// Runs a tool; the seam that lets tests replay recorded outputs.
package protocol CommandRunner: Sendable {
    /// nil when the tool is not installed.
    func run(_ arguments: [String], timeoutMs: Int) -> CommandResult?
}

/// Runs a real executable through Foundation's Process, killed after a timeout
/// (a wedged modem can make mmcli hang for its D-Bus timeout of 25 s or more).
package struct ProcessRunner: CommandRunner {
    package let executable: String?

    /// Looks the tool up on PATH (and the sbin folders, which a user's PATH may lack).
    package init(tool: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        executable = path.split(separator: ":").map { "\($0)/\(tool)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    package init(executable: String?) { self.executable = executable }

    package func run(_ arguments: [String], timeoutMs: Int) -> CommandResult? {
        guard let executable else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        // The timer kills the child unless it has exited; the flag (under a lock) keeps it from
        // signalling a reused pid after the wait.
        let state = TimeoutState()
        let pid = p.processIdentifier
        // The timer and the stderr reader each on a serial queue of its own,
        // which gets a thread even when the global pool's are all busy: on
        // the pool, a starved reader made `echo` time out on a loaded machine.
        // Two queues: the reader holds its queue until the child's stderr closes.
        DispatchQueue(label: "fprint.command-timer").asyncAfter(deadline: .now() + .milliseconds(timeoutMs)) {
            state.lock.withLock {
                guard !state.exited else { return }
                state.timedOut = true
                kill(pid, SIGKILL)
            }
        }
        // Read both pipes before waiting so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue(label: "fprint.command-stderr").async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        let timedOut = state.lock.withLock {
            state.exited = true
            return state.timedOut
        }
        return CommandResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self), timedOut: timedOut)
    }
}

private final class TimeoutState: @unchecked Sendable {
    let lock = NSLock()
    var exited = false
    var timedOut = false
}
