import Dispatch
import Synchronization
import PathwatchProbeKit

/// One line per event or document on standard output, flushed per line: `text` for people,
/// `json` for one JSON object per line. Lines wait in this sink's own bounded queue, so a
/// reader that stops reading blocks nobody but this sink; past the bound, the oldest lines are
/// dropped and counted.
final class StdoutSink: Sink {
    static let maxQueuedLines = 10_000

    let format: OutputFormat
    let triggers: Set<SinkTrigger>
    /// Its own thread: a reader that stops reading blocks this write and nothing else.
    private let queue = SerialThread(name: "pw-sink-stdout")
    private let pending = Mutex<(lines: [String], scheduled: Bool, dropped: Int)>(([], false, 0))

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
        if schedule { queue.async { self.flush() } }
    }

    private func flush() {
        while true {
            let batch = pending.withLock { state -> [String] in
                let lines = state.lines
                state.lines = []
                if lines.isEmpty { state.scheduled = false }
                return lines
            }
            if batch.isEmpty { return }
            // write(2) on the descriptor: nothing buffered, so every line is out when written.
            for line in batch { FileDescriptorWriter.writeAll(STDOUT_FILENO, line + "\n") }
        }
    }

    func drain(timeout: Double) {
        let done = DispatchSemaphore(value: 0)
        queue.async { self.flush(); done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }

    func close(handingOverTo successors: [any Sink]) { queue.finish() }

    func status() -> SinkStatus {
        pending.withLock { SinkStatus(type: "stdout", target: "stdout", queued: $0.lines.count, dropped: $0.dropped) }
    }

    // Text lines are for terminals: whatever a plug-in put in a message, one event stays one
    // line and cannot recolour or reorder the screen. JSON escapes control characters itself.
    func renderEvent(_ event: ChangeEvent) -> String {
        format == .json ? JSONSerializer.serialize(event.json) : TextSafety.escaped(TextFormat.eventLine(event))
    }

    func renderDocument(_ batch: SinkBatch) -> String {
        format == .json
            ? batch.snapshot.jsonText()
            : TextSafety.escaped(TextFormat.documentLine(batch.document, state: batch.state, time: batch.time))
    }
}
