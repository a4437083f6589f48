import FPCore
import Foundation

/// `fprint export attachments --output DIR`: every attachment of the chosen
/// documents as `DIR/<document id>/<attachment name>`, byte for byte.
enum ExportAttachments {
    /// Returns how many files were written.
    static func write(_ docs: [(id: String, body: JSONValue)], store: any ReplicableStore, into dir: String) throws -> Int {
        var written = 0
        for doc in docs {
            for stub in Attachments.stubs(of: doc.body) {
                guard let bytes = try store.attachmentBytes(id: doc.id, digest: stub.digest) else {
                    DamageLog.shared.record([DamagedDocument(id: doc.id, rev: nil,
                                                             reason: "the bytes of attachment \(stub.name) are missing")])
                    continue
                }
                let folder = "\(dir)/\(fileName(doc.id))"
                let path = "\(folder)/\(fileName(stub.name))"
                do {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    throw CommandFailure("\(path): cannot write the attachment: \(error.localizedDescription)", .ioError)
                }
                written += 1
            }
        }
        return written
    }

    /// A name that stays one path component inside the output directory: a
    /// peer chooses ids and attachment names, so "/" and a leading "." are
    /// percent-encoded ("../x" must not climb out).
    static func fileName(_ name: String) -> String {
        var out = name.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "\0", with: "%00")
        if out.hasPrefix(".") { out = "%2E" + out.dropFirst() }
        return out.isEmpty ? "%" : out
    }
}
