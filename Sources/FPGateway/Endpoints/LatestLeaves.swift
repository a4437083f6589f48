import FPCore

/// What `latest=true` asks for: the leaves that revisions lead to (a leaf
/// leads to itself), for every asked revision of one document at once.
/// Each leaf's ancestry is read once, one leaf at a time, and only when an
/// asked revision is not a leaf: a request naming one document's
/// revisions many times over reads its leaves once, not once per name.
struct LatestLeaves {
    /// The leaves some asked revision leads to, in the store's order
    /// (winner first), each with the index of the first asked revision
    /// that leads to it.
    private(set) var leaves: [(rev: Revision, firstAsker: Int)] = []
    /// Indices of the asked revisions that lead to some leaf.
    private(set) var reached = Set<Int>()

    init(_ store: any ReplicableStore, id: String, asked: [Revision]) throws {
        var first: [Revision: Int] = [:]
        for (index, rev) in asked.enumerated() where first[rev] == nil { first[rev] = index }
        let all = try store.leaves(id: id)
        let leafRevs = Set(all.map(\.rev))
        let ancestorsAsked = asked.contains { !leafRevs.contains($0) }
        for leaf in all {
            let line = ancestorsAsked ? try store.revisionText(id: id, rev: leaf.rev)?.history ?? [leaf.rev] : [leaf.rev]
            var firstAsker: Int?
            for rev in line {
                guard let index = first[rev] else { continue }
                reached.insert(index)
                firstAsker = min(firstAsker ?? index, index)
            }
            if let firstAsker { leaves.append((leaf.rev, firstAsker)) }
        }
    }

    /// The leaves in the order they were first asked for (ties: the store's order).
    var inAskedOrder: [Revision] {
        leaves.enumerated().sorted { ($0.element.firstAsker, $0.offset) < ($1.element.firstAsker, $1.offset) }.map(\.element.rev)
    }
}
