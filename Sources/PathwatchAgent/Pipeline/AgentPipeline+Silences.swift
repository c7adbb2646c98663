import PathwatchSinkKit

/// Silences as time passes: once a second the pipeline reads the silences file if it changed
/// and, when the checks silenced now are not those of the last batch (a window opened or
/// closed, a silence was added, removed or ran out), publishes the whole state, so documents
/// mark what is silenced now and the notifiers get what a closed window owes them at once.
extension AgentPipeline {
    static let silenceTick: UInt64 = 1_000_000_000

    /// Starts the once-a-second look (`run` only: `once` has no silences file).
    func watchSilences() {
        clock.schedule(atMonotonic: clock.monotonicNow &+ Self.silenceTick) { [weak self] in
            self?.send { $0.silenceTickFired() }
        }
    }

    private func silenceTickFired() {
        _ = state.silencing.refresh(logger: logger)
        if state.silencing.lastSilenced != silencedNow() { publishState() }
        watchSilences()
    }

    /// The checks silenced at this moment.
    func silencedNow() -> Set<String> { state.silencing.silencedChecks(in: state.book, at: clock.wallNow) }
}
