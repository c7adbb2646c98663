import PathwatchSinkKit

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
        let agent = snapshot.identity.name
        for id in snapshot.unannouncedCheckIDs {
            if let standing = told[id] { self[id] = standing }
        }
        for check in snapshot.firingChecks {
            self[check.id] = FiringAlert(
                check: check.id, probe: check.probe, agent: agent, severity: check.state.name, message: check.message,
                startsAt: check.since)
        }
    }
}
