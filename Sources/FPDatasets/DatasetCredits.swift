/// The credit line a result drawn from a public dataset must carry: both
/// datasets fprint's guides use are CC BY 4.0, which asks for the authors,
/// the source and the licence wherever the data is shown.
package enum DatasetCredits {
    /// Known datasets by the name they are imported under (case and spelling
    /// variants folded), each with its credit.
    private static let known: [(names: [String], credit: String)] = [
        (["uji-lib-longterm", "uji-longterm"],
         "Data: Mendoza-Silva, Richter, Torres-Sospedra, Lohan, Huerta, Long-Term WiFi Fingerprinting Dataset, Data 2018 3(1):3, doi:10.5281/zenodo.1066041, CC BY 4.0"),
        (["ble-flat-robot"],
         "Data: M. Kolakowski, BLE RSS dataset for radio-map calibration, Sensors 2021 21:6270, doi:10.5281/zenodo.5457591, CC BY 4.0"),
        (["ujiindoorloc"],
         "Data: Torres-Sospedra et al., UJIIndoorLoc, IPIN 2014, UCI Machine Learning Repository, CC BY 4.0"),
    ]

    /// The credit of a dataset imported under `name`; a dataset fprint does
    /// not know is still named, so a plot never hides where its data came from.
    package static func credit(for name: String) -> String {
        let folded = name.lowercased()
        if let hit = known.first(where: { $0.names.contains { folded == $0 || folded.hasPrefix($0 + "-") } }) { return hit.credit }
        return "Data: dataset \(name) (imported; credit its authors as its licence asks)"
    }

    /// One line per dataset among `names`, in name order, each credit once.
    package static func lines<S: Sequence>(for names: S) -> [String] where S.Element == String {
        var seen = Set<String>()
        return Set(names).sorted().map(credit(for:)).filter { seen.insert($0).inserted }
    }
}
