import Dispatch
import Glibc
import PathwatchAgent
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import Synchronization

/// One line per event or document on standard output, flushed per line: `text` for people,
/// `json` for one JSON object per line. Lines wait in this sink's own bounded queue, so a
/// reader that stops reading blocks nobody but this sink; past the bound, the oldest lines are
/// dropped and counted.
///
/// A line is written whole or not at all: at a stop, queued lines get the drain's time, then no
/// new line starts, and the line being written (a document of 100 MB to a slow reader takes
/// seconds) is finished, for up to `lineCompletionSeconds` from the start of the drain.
final class StdoutSink: Sink {
    static let maxQueuedLines = 10_000
    /// How long a stop waits for the line in progress, counted from the start of the drain:
    /// inside the service unit's TimeoutStopSec (20 s), after which systemd kills the agent.
    static let lineCompletionSeconds: Double = 15

    private struct Pending {
        var lines: [String] = []
        /// A thread (the sink's, or a submitter writing on its own) owns the writing.
        var scheduled = false
        var dropped = 0
        /// A line is being written: a stop waits for it.
        var writing = false
        /// Stopping: no new line starts; what is still queued is dropped.
        var closing = false
    }

    let format: OutputFormat
    let triggers: Set<SinkTrigger>
    /// Its own thread: a reader that stops reading blocks this write and nothing else.
    private let queue = SerialThread(name: "pw-sink-stdout")
    private let pending = Mutex(Pending())
    /// When the last line was written whole: the document's `last_delivery`.
    private let lastDelivery = Mutex<WallTime?>(nil)

    init(format: OutputFormat, triggers: Set<SinkTrigger>) {
        self.format = format
        self.triggers = triggers
    }

    func submit(_ batch: SinkBatch) {
        var lines: [String] = []
        if triggers.contains(.change) { lines += batch.events.map(renderEvent) }
        if triggers.contains(.every) {
            lines.append(renderDocument(batch))
        } else if format == .text && batch.firstComplete {
            // People watching changes in text still want one line saying where things stand at
            // start; machines reading json get exactly the events they asked for.
            lines.append(renderDocument(batch))
        }
        guard !lines.isEmpty else { return }
        let schedule = pending.withLock { state -> Bool in
            guard !state.closing else {
                state.dropped += lines.count
                return false
            }
            state.lines += lines
            if state.lines.count > Self.maxQueuedLines {
                let excess = state.lines.count - Self.maxQueuedLines
                state.lines.removeFirst(excess)
                state.dropped += excess
            }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule && !writeOnCaller() { queue.async { self.flush() } }
    }

    /// Lines the caller may write itself: at most what a pipe takes in one atomic write.
    static let callerWriteLimit = 4096

    /// With nothing queued before and nobody writing, the submitting thread writes the lines
    /// itself when standard output can take them now (poll says writable, and they fit in one
    /// atomic pipe write), saving this sink's thread a wake-up on the path from a change to its
    /// line. Otherwise (a reader that is behind, a long document) the sink's thread writes, so
    /// a reader that stops reading still blocks nobody else. Returns false when it wrote nothing.
    private func writeOnCaller() -> Bool {
        var ready = pollfd(fd: AgentOutput.descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, 0) == 1, ready.revents == Int16(POLLOUT) else { return false }
        let text = pending.withLock { state -> String? in
            guard !state.closing else { return nil }
            var text = state.lines.joined(separator: "\n")
            text += "\n"
            guard text.utf8.count <= Self.callerWriteLimit else { return nil }
            state.lines = []
            state.writing = true
            return text
        }
        guard let text else { return false }
        if AgentOutput.write(text) { lastDelivery.withLock { $0 = .now() } }
        let more = pending.withLock { state -> Bool in
            state.writing = false
            if state.lines.isEmpty { state.scheduled = false }
            return !state.lines.isEmpty
        }
        if more { queue.async { self.flush() } }
        return true
    }

    /// On the sink's thread, for whoever claimed the queue: writes until it is empty, one line at
    /// a time, and starts none once the sink is closing.
    private func flush() {
        while true {
            let batch = pending.withLock { state -> [String] in
                let lines = state.closing ? [] : state.lines
                state.dropped += state.lines.count - lines.count
                state.lines = []
                if lines.isEmpty { state.scheduled = false }
                return lines
            }
            if batch.isEmpty { return }
            for (index, line) in batch.enumerated() {
                let stopping = pending.withLock { state -> Bool in
                    if state.closing {
                        state.dropped += batch.count - index
                        state.scheduled = false
                    } else {
                        state.writing = true
                    }
                    return state.closing
                }
                if stopping { return }
                // write(2) on the descriptor: nothing buffered, so every line is out when written.
                let written = AgentOutput.write(line + "\n")
                pending.withLock { $0.writing = false }
                if written { lastDelivery.withLock { $0 = .now() } }
            }
        }
    }

    /// Waits until every line handed over is written, for at most `timeout`; then lets no new
    /// line start, and waits for the one being written to end (up to `lineCompletionSeconds`
    /// from now): the process ends after this, and a line cut there would be a torn document.
    /// Only the thread that claimed the queue (`scheduled`) writes, so this never writes itself.
    func drain(timeout: Double) {
        let started = DispatchTime.now()
        let deadline = started + timeout
        while !pending.withLock({ $0.lines.isEmpty && !$0.scheduled }), DispatchTime.now() < deadline { usleep(1_000) }
        pending.withLock { $0.closing = true }
        let lastChance = started + Self.lineCompletionSeconds
        while pending.withLock({ $0.writing }), DispatchTime.now() < lastChance { usleep(1_000) }
    }

    func close(handingOverTo successor: (any Sink)?) { queue.finish() }

    func status() -> SinkStatus {
        let last = lastDelivery.withLock { $0 }
        return pending.withLock {
            SinkStatus(
                type: "stdout", target: "stdout", queued: $0.lines.count, dropped: $0.dropped, lastDelivery: last)
        }
    }

    // Text lines are for terminals: whatever a plug-in put in a message, one event stays one
    // line and cannot recolour or reorder the screen. JSON escapes control characters itself.
    func renderEvent(_ event: ChangeEvent) -> String {
        format == .json ? event.jsonText : TextSafety.escaped(TextFormat.eventLine(event))
    }

    func renderDocument(_ batch: SinkBatch) -> String {
        format == .json
            ? batch.snapshot.jsonText()
            : TextSafety.escaped(TextFormat.documentLine(batch.snapshot))
    }
}
