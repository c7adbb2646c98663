import Glibc
import PathwatchSinkKit

/// Silences as time passes: the pipeline reads the silences file when `pathwatch silence`
/// replaced it (SilenceFileWatch) and looks again at each instant a window or a silence starts
/// or stops. When the checks silenced now are not those of the last batch, it publishes the
/// whole state, so documents mark what is silenced now and the notifiers get what a closed
/// window owes them at once. With no silence and no window, nothing runs.
extension AgentPipeline {
    /// Without a watch on the file (no inotify), how often it is looked at.
    static let silenceFilePoll: UInt64 = 60_000_000_000

    /// Starts the watch on the silences file and the timer of the next boundary (`run` only).
    func watchSilences() {
        if let file = state.silencing.file {
            if mkdir(file.folder, 0o700) != 0 && errno != EEXIST {
                logger.debug("silences: cannot create \(file.folder); `pathwatch silence` will create it")
            }
            state.silencing.fileWatch = SilenceFileWatch(folder: file.folder, name: "silences.json") {
                [weak self] in self?.send { $0.silencesChanged() }
            }
        }
        scheduleSilenceBoundary()
    }

    /// Ends the watch (the agent stops).
    func stopWatchingSilences() {
        state.silencing.fileWatch?.stop()
        state.silencing.fileWatch = nil
        state.silencing.boundaryTimer?.cancel()
    }

    /// The file changed, a boundary came, or a reload changed the windows: publishes if what is
    /// silenced changed, and sets the next boundary.
    func silencesChanged() {
        _ = state.silencing.refresh(logger: logger)
        if state.silencing.lastSilenced != silencedNow() { publishState() }
        scheduleSilenceBoundary()
    }

    private func scheduleSilenceBoundary() {
        state.silencing.boundaryTimer?.cancel()
        state.silencing.boundaryTimer = nil
        let now = clock.wallNow
        var wait = state.silencing.nextChange(after: now).map {
            UInt64(max(0, $0.milliseconds - now.milliseconds)) * 1_000_000
        }
        if state.silencing.file != nil && state.silencing.fileWatch == nil {
            wait = min(wait ?? Self.silenceFilePoll, Self.silenceFilePoll)
        }
        guard let wait else { return }
        state.silencing.boundaryTimer = clock.schedule(atMonotonic: clock.monotonicNow &+ wait) { [weak self] in
            self?.send { $0.silencesChanged() }
        }
    }

    /// The checks silenced at this moment.
    func silencedNow() -> Set<String> { state.silencing.silencedChecks(in: state.book, at: clock.wallNow) }
}
