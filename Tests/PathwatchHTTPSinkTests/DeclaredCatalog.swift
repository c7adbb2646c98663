import PathwatchProbeKit
import PathwatchProbeRules

extension MetricCatalog {
    /// The catalog of `declarations`, which a test writes to be accepted: a refusal is the
    /// test's own mistake, so it stops there rather than testing something else.
    static func declaring(_ declarations: [MetricDeclaration]) -> MetricCatalog {
        switch MetricCatalog.checked(declarations) {
        case .success(let catalog): return catalog
        case .failure(let refusal): fatalError("the test's declaration is refused: \(refusal)")
        }
    }
}
