import FPHCI

/// Where a read loop gets frames: one H4 frame per read. The kernel socket is
/// one implementation; tests inject others (a scripted source, a socketpair).
package protocol HCIFrameSource: AnyObject, Sendable {
    /// One H4 frame, or nil after `timeoutMs` without one.
    func read(timeoutMs: Int32) throws(HCISocketError) -> [UInt8]?
}

/// What the command engine and scanners talk to: frames in, frames out.
package protocol HCITransport: HCIFrameSource {
    func write(_ frame: [UInt8]) throws(HCISocketError)
}

/// What a live scan needs of its socket: frames both ways and the event
/// filter, saved before scanning and put back after.
package protocol HCIScanSocket: HCITransport {
    func currentFilter() -> HCISocket.SavedFilter?
    func setFilter(events: [UInt8]?) throws(HCISocketError)
    func restoreFilter(_ saved: HCISocket.SavedFilter)
}

extension HCISocket: HCIScanSocket {}
