import PathwatchProbeKit

/// One change of one check's state (contract §4). The id is made once, so every redelivery of the
/// event carries the same id and receivers can drop duplicates.
public struct ChangeEvent: Sendable {
    public var id: String
    public var agent: String
    public var check: String
    public var probe: String
    public var from: CheckState?
    public var to: CheckState
    public var at: WallTime
    public var message: String
    public var path: PathSummary
}
