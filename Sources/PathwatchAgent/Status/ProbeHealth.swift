/// The agent's view of one probe's host (contract §3, `probes`).
package struct ProbeHealth: Sendable {
    package enum State: String, Sendable { case running, restarting, failed }
    package var state: State = .running
    package var restarts = 0
    package var pid: Int32?
    package var lastError: String?
    package var lastDurationMilliseconds: Double?
}
