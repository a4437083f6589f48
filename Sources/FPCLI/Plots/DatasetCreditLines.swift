import FPAnalysis
import FPDatasets

extension Sequence where Element == Fingerprint {
    /// The credit lines of the public datasets these fingerprints were imported from (none for own measurements).
    var datasetCredits: [String] { DatasetCredits.lines(for: compactMap(\.labels.dataset)) }
}
