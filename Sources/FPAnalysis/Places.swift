/// Measurements taken at one place, as plots and map facts count them.
package struct Place<Member> {
    /// The first member's position: every member lies within the precision of it.
    package var x: Double
    package var y: Double
    package var members: [Member]
}

/// Groups items by position, rounded to `precision` map units, keeping the
/// order in which each place was first met (so drawings and listings stay
/// stable between runs). Datasets measure a reference point many times; this
/// is the one place that decides when two positions are the same point.
package func places<Member>(_ items: [Member], precision: Double,
                            at position: (Member) -> (x: Double, y: Double)) -> [Place<Member>] {
    var index: [PlaceKey: Int] = [:]
    var result: [Place<Member>] = []
    for item in items {
        let at = position(item)
        let key = PlaceKey(x: Int((at.x / precision).rounded()), y: Int((at.y / precision).rounded()))
        if let i = index[key] {
            result[i].members.append(item)
        } else {
            index[key] = result.count
            result.append(Place(x: at.x, y: at.y, members: [item]))
        }
    }
    return result
}

private struct PlaceKey: Hashable { var x: Int, y: Int }
