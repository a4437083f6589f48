/// Ids the store can keep exactly. SQLite takes a Swift string up to its
/// first NUL, so `bob%00x` would read and pass the owner check as `bob`'s
/// document: an id, attachment name or path segment holding NUL is refused
/// (400) wherever it arrives. Other control characters are kept exactly.
enum DocumentIDs {
    /// Refuses `text` if it holds NUL; `what` names it in the reason.
    static func check(_ text: String, _ what: @autoclosure () -> String) throws {
        if let refusal = refusal(text, what()) { throw refusal }
    }

    /// Why `text` cannot be an id (it holds NUL), or nil.
    static func refusal(_ text: String, _ what: @autoclosure () -> String) -> CouchError? {
        guard text.utf8.contains(0) else { return nil }
        return CouchError.badRequest("\(what()) holds a NUL character (U+0000), which no id or name may hold")
    }

    /// `check` for each of a list of ids.
    static func check(_ ids: some Sequence<String>, _ what: String) throws {
        for id in ids { try check(id, what) }
    }
}
