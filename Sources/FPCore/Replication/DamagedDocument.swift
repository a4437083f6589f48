/// A stored revision that cannot be read back: its body does not decompress,
/// fails its checksum, is not JSON, or its row cannot be read at all.
///
/// A type of its own rather than `StoreError.io`, so that readers of many
/// documents (export, eval, sync, the gateway) can skip and name the damaged
/// one and carry every intact one, while any other I/O error still stops them.
public struct DamagedDocument: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var id: String
    /// The damaged revision; nil when the revision itself is unreadable.
    public var rev: String?
    /// What is wrong, for the user ("it does not decompress").
    public var reason: String

    public init(id: String, rev: String?, reason: String) {
        self.id = id
        self.rev = rev
        self.reason = reason
    }

    public var description: String {
        "the stored body of \(id)\(rev.map { " (revision \($0))" } ?? "") is damaged: \(reason)"
    }
}
