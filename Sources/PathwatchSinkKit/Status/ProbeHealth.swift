/// The agent's view of one probe's host (contract §3, `probes`).
package struct ProbeHealth: Sendable {
    package enum State: String, Sendable { case running, restarting, failed }
    package var state: State = .running
    package var restarts = 0
    package var pid: Int32?
    package var lastError: String?
    package var lastDurationMilliseconds: Double?

    package init(
        state: State = .running, restarts: Int = 0, pid: Int32? = nil, lastError: String? = nil,
        lastDurationMilliseconds: Double? = nil
    ) {
        self.state = state
        self.restarts = restarts
        self.pid = pid
        self.lastError = lastError
        self.lastDurationMilliseconds = lastDurationMilliseconds
    }
}
