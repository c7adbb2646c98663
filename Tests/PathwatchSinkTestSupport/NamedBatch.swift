@testable import PathwatchAgent
@testable import PathwatchSinkKit

extension SinkBatch {
    /// A batch with no events and no checks whose document says which it is by the agent's
    /// name: what a sink's delivery order and spacing are read by.
    static func named(_ name: String) -> SinkBatch {
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: name), time: WallTime(milliseconds: 1), checks: [], path: .unmonitored)
        return SinkBatch(events: [], snapshot: snapshot)
    }
}
