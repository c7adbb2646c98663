import PathwatchProbeKit

/// One change of one check's state (contract §4). The id is made once, so every redelivery of the
/// event carries the same id and receivers can drop duplicates.
package struct ChangeEvent: Sendable {
    package var id: String
    package var agent: String
    package var check: String
    package var probe: String
    package var from: CheckState?
    package var to: CheckState
    package var at: WallTime
    package var message: String
    package var path: PathSummary
}
