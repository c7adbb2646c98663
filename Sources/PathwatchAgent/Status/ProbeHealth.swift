/// The agent's view of one probe's host (contract §3, `probes`).
public struct ProbeHealth: Sendable {
    public enum State: String, Sendable { case running, restarting, failed }
    public var state: State = .running
    public var restarts = 0
    public var pid: Int32?
    public var lastError: String?
    public var lastDurationMilliseconds: Double?
}
