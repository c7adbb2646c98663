@testable import PathwatchAgent
@testable import PathwatchSinkKit

extension SinkBatch {
    /// A batch with no events and no checks whose document says which it is by the agent's
    /// name: what a sink's delivery order and spacing are read by.
    /// `tick`: the tick whose reports made it (`SinkBatch.tick`).
    static func named(_ name: String, tick: UInt64? = nil) -> SinkBatch {
        let snapshot = StatusSnapshot(
            identity: AgentIdentity(name: name), time: WallTime(milliseconds: 1), checks: [], path: .unmonitored)
        var batch = SinkBatch(events: [], snapshot: snapshot)
        batch.tick = tick
        return batch
    }
}
