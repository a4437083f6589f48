import Foundation

/// Scanning without root, as the Debian package sets it up (docs/install.md):
/// `/usr/lib/fprint/fprint-radio` is a copy of fprint that holds CAP_NET_RAW
/// and CAP_NET_ADMIN and that only root and the `fprint` group may run
/// (the way wireshark's dumpcap is set up). `fprint` hands the commands that
/// scan to it, so members scan without sudo and nothing else they run holds
/// the capabilities; everyone else gets exit 81 naming the group.
package enum RadioHelper {
    /// The package's copy, or FPRINT_RADIO_HELPER's (the VM test sets one up
    /// where the root file system is read-only). Running another program
    /// this way gives a user nothing they could not run themselves.
    package static var path: String {
        ProcessInfo.processInfo.environment["FPRINT_RADIO_HELPER"] ?? "/usr/lib/fprint/fprint-radio"
    }
    package static let group = "fprint"
    /// Commands that open raw HCI sockets or trigger Wi-Fi scans.
    /// An array, not a Set: a Set's metadata is instantiated through a runtime
    /// search of every conformance in the binary, at every command's start.
    static let scanningCommands: [String] = [
        "measure", "walk", "scan", "adapters", "advertise", "regions", "doctor", "track", "dashboard",
    ]

    /// Replaces this process with the helper when `arguments` (with the
    /// program name) run a scanning command, this user may run the helper,
    /// and it is the group's (scanning without root is on); returns
    /// otherwise. FPRINT_NO_RADIO_HELPER=1 opts out.
    /// Every command passes here first: the others leave before anything is
    /// asked of Foundation (its ProcessInfo took ~2 ms of every `sync`'s start).
    package static func handOverIfGranted(_ arguments: [String], helper: @autoclosure () -> String = path) {
        guard arguments.count > 1, scanningCommands.contains(arguments[1]) else { return }
        let helper = helper()
        guard geteuid() != 0, ProcessInfo.processInfo.environment["FPRINT_NO_RADIO_HELPER"] == nil,
              access(helper, X_OK) == 0, isGroupOnly(helper), !isRunning(helper)
        else { return }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(helper, argv)
        // The helper could not start: go on without it (exit 81 says what to do).
    }

    /// Whether scanning without root is on: postinst then makes the copy
    /// root:fprint 0750 with its capabilities, and 0755 without them when it
    /// is off. (The mode, not the capabilities: Glibc's module has no getxattr.)
    static func isGroupOnly(_ file: String) -> Bool {
        var info = stat()
        return stat(file, &info) == 0 && info.st_mode & S_IXOTH == 0 && info.st_mode & S_IXGRP != 0
    }

    static func isRunning(_ file: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) == file
    }

    /// What to do about a refused raw HCI socket where the package is
    /// installed; nil elsewhere (the caller's setcap advice holds then).
    package static func permissionAdvice(helper: String = path, user: String = loginName()) -> String? {
        guard FileManager.default.fileExists(atPath: helper) else { return nil }
        guard isGroupOnly(helper) else {
            return "scanning without root is off on this machine: `sudo dpkg-reconfigure fprint` turns it on for the \(group) group"
        }
        let listed = getgrnam(group).map { entry in
            var members: [String] = []
            var p = entry.pointee.gr_mem
            while let name = p?.pointee {
                members.append(String(cString: name))
                p = p?.advanced(by: 1)
            }
            return members.contains(user)
        } ?? false
        if listed {
            return "you were added to the \(group) group after this login began: log in again (or run `newgrp \(group)`)"
        }
        return "members of the \(group) group scan without root: `sudo adduser \(user) \(group)`, then log in again"
    }

    /// This user's name for the advice; the uid where it has none (a test's numeric user).
    static func loginName() -> String {
        getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? String(getuid())
    }
}
