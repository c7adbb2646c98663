import PathwatchAgent
extension FiringAlerts {
    /// What should be firing after `snapshot`: one alert per check whose state is `warning`,
    /// `critical` or `unknown`, with the state as its severity, the check's current message, and
    /// the time the check entered that state as its start (the same on every re-send).
    ///
    /// A check whose state differs from the one last announced — silenced while the path is
    /// unsatisfied, shown `unknown` for the agent's own fault, or first seen as a problem while
    /// offline — has not changed as far as anyone was told: the alert in `told` for it (if any)
    /// stands, so re-sends say what the change events said. A check first seen `unknown` raises no
    /// event but is firing all the same: Alertmanager holds states, not news, and after a restart
    /// that is how an alert of the previous run is kept alive.
    init(snapshot: StatusSnapshot, told: FiringAlerts) {
        self.init()
        let agent = snapshot.book.agentName
        for record in snapshot.book.records.values {
            guard record.state == record.announced else {
                if let standing = told[record.id] { self[record.id] = standing }
                continue
            }
            guard record.state != .ok else { continue }
            self[record.id] = FiringAlert(
                check: record.id, probe: record.probe, agent: agent, severity: record.state.name, message: record.message,
                startsAt: record.since)
        }
    }
}
