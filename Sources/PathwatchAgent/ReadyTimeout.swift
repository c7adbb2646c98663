import PathwatchJSON

/// When the observer (systemd's READY=1) hears the agent is ready: once every probe has reported,
/// or once `agent.ready_timeout` has passed, whichever comes first. One probe whose first sample
/// hangs (an exec command until its 10 s timeout) would otherwise hold every start and restart;
/// those that have not reported by then join as they report, and the summary names them until
/// they have.
enum ReadyTimeout {
    /// Called by `start` once the probes sample: with no probe there is no first report to wait
    /// for; otherwise the bound is armed.
    static func arm(_ timeout: ConfigDuration, for agent: Agent, probes: Int) {
        guard let observer = agent.observer else { return }
        guard probes > 0 else {
            return agent.pipeline.send { observer.agentReported($0.state.summary(), ready: true) }
        }
        let due = agent.clock.monotonicNow &+ UInt64(max(0, timeout.nanoseconds))
        agent.clock.schedule(atMonotonic: due) { [weak agent] in
            if let agent { elapsed(agent, observer: observer) }
        }
    }

    /// The bound passed: ready, naming the probes still awaited; nothing when all have reported
    /// (that report said ready itself).
    static func elapsed(_ agent: Agent, observer: any AgentObserver) {
        agent.pipeline.send { p in
            if p.state.awaitingFirstReport != nil { observer.agentReported(p.state.summary(), ready: true) }
        }
    }
}
