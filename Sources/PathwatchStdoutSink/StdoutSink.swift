import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchSinkKit

/// One line per event or document on standard output, flushed per line: `text` for people,
/// `json` for one JSON object per line. Run by a SinkRunner: lines wait in its bounded intake,
/// so a reader that stops reading blocks nobody but this sink; past the bound, the oldest lines
/// are dropped and counted.
///
/// A line is written whole or not at all: at a stop, queued lines get the drain's time, then no
/// new line starts, and the line being written (a document of 100 MB to a slow reader takes
/// seconds) is finished, for up to `lineCompletionSeconds` from SIGTERM.
final class StdoutSink: SinkDelivery {
    static let maxQueuedLines = 10_000
    /// How long a stop waits for the line in progress, counted from SIGTERM (not from the
    /// drain, which begins once the probes stopped): inside the service unit's TimeoutStopSec
    /// (20 s), after which systemd kills the agent.
    static let lineCompletionSeconds: Double = 15
    /// Lines the caller may write itself: at most what a pipe takes in one atomic write.
    static let callerWriteLimit = 4096

    let format: OutputFormat
    let triggers: SinkTriggers

    init(format: OutputFormat, triggers: SinkTriggers) {
        self.format = format
        self.triggers = triggers
    }

    var intakePolicy: SinkIntakePolicy { .keepAll(max: Self.maxQueuedLines) }
    var threadName: String { "pw-sink-stdout" }
    var finishWithin: Double? { Self.lineCompletionSeconds }
    var deliversOnCaller: Bool { true }

    /// The lines a batch makes, rendered on the submitting thread.
    func intake(_ batch: SinkBatch) -> SinkIntake<String> {
        var lines: [String] = []
        if triggers.contains(.change) { lines += batch.events.map(renderEvent) }
        if triggers.contains(.every) {
            lines.append(renderDocument(batch))
        } else if format == .text && batch.firstComplete {
            // People watching changes in text still want one line saying where things stand at
            // start; machines reading json get exactly the events they asked for.
            lines.append(renderDocument(batch))
        }
        return SinkIntake(lines)
    }

    /// write(2) on the descriptor: nothing buffered, so every line is out when written.
    func deliver(_ line: String) -> SinkDeliveryResult {
        AgentOutput.write(line + "\n") ? .delivered : .unconfirmed
    }

    /// The submitting thread writes the lines itself when standard output can take them now
    /// (poll says writable, and they fit in one atomic pipe write), saving the sink's thread a
    /// wake-up on the path from a change to its line. Otherwise (a reader that is behind, a long
    /// document) the sink's thread writes, so a reader that stops reading blocks nobody else.
    func deliverOnCaller(_ lines: [String]) -> SinkDeliveryResult? {
        var ready = pollfd(fd: AgentOutput.descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, 0) == 1, ready.revents == Int16(POLLOUT) else { return nil }
        let text = lines.joined(separator: "\n") + "\n"
        guard text.utf8.count <= Self.callerWriteLimit else { return nil }
        return AgentOutput.write(text) ? .delivered : .unconfirmed
    }

    func status() -> SinkStatus { SinkStatus(type: "stdout", target: "stdout", queued: 0, dropped: 0) }

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
