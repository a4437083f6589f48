import FPCore
import FPHCI
import Foundation

/// `--keep-raw`: each document carries the HCI packets of its own window as
/// a btsnoop attachment, so a measurement holds its own evidence (it opens in
/// Wireshark and replays with `--ble-source btsnoop:FILE`).
enum RawEvidence {
    static let name = "raw.btsnoop"
    static let contentType = "application/x-btsnoop"

    /// The document body with the capture's stub, and the stored document ready
    /// to insert. `until`: the window end; `lastWindow` keeps a packet at the
    /// very end (windows are half-open otherwise, so none is in two documents).
    static func document(id: String, body: JSONValue, log: RawHCILog, clock: any MeasurementClock,
                         fromMs start: Int, toMs end: Int, lastWindow: Bool) -> NewDocument {
        // One rounded origin plus whole milliseconds: packet spacing stays exact
        // (a per-packet Date would round some 1 µs short, a ms early on replay).
        let origin = Int64((clock.wallTime(atMs: 0).timeIntervalSince1970 * 1e6).rounded())
        let packets = log.packets(fromMs: start, toMs: end, inclusiveEnd: lastWindow).map { packet in
            BtsnoopWriter.Packet(timestampMicros: origin + Int64(packet.atMs) * 1000, h4: packet.h4, received: packet.received)
        }
        let bytes = BtsnoopWriter.h4File(packets)
        let digest = Attachments.digest(of: bytes)
        var body = body
        body["_attachments"] = [name: Attachments.stub(contentType: contentType, digest: digest, length: bytes.count, revpos: 1)]
        return NewDocument(id: id, body: body, attachmentData: [digest: bytes])
    }

    /// A warning when the log filled up and dropped packets.
    static func droppedNote(_ log: RawHCILog) -> String? {
        log.dropped > 0 ? "--keep-raw: the raw capture reached \(RawHCILog.defaultLimit >> 20) MB; \(log.dropped) later packets were not kept" : nil
    }
}
