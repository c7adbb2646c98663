import PathwatchProbeKit
import PathwatchSinkKit

/// A child's stdout and stderr, as debug log lines naming the probe: each line cut at 1 KiB,
/// at most 100 lines a minute of the two together (the rest counted), so a chattering plug-in
/// cannot flood the log. The minute is the agent's clock's (a child's restarts are timed on it).
package struct OutputLog {
    package enum Stream: Int {
        case stdout = 0
        case stderr = 1
    }

    package let label: @Sendable () -> String
    package let logger: AgentLogger
    /// The line each stream has begun and not ended yet.
    private var partial: [[UInt8]] = [[], []]
    /// What the one-minute window is read on.
    private let clock: any AgentClock
    private var windowStart: UInt64
    private var linesInWindow = 0
    private var suppressed = 0

    package init(label: @escaping @Sendable () -> String, logger: AgentLogger, clock: any AgentClock = SystemClock()) {
        self.label = label
        self.logger = logger
        self.clock = clock
        windowStart = clock.monotonicNow
    }

    package mutating func append(_ bytes: ArraySlice<UInt8>, from stream: Stream) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(stream)
            } else if partial[stream.rawValue].count < 1_024 {
                partial[stream.rawValue].append(byte)
            }
        }
    }

    package mutating func flush() {
        for stream in [Stream.stdout, .stderr] where !partial[stream.rawValue].isEmpty { emit(stream) }
        if suppressed > 0 { logger.debug("\(label()): plug-in output: \(suppressed) more lines not logged") }
    }

    private mutating func emit(_ stream: Stream) {
        let now = clock.monotonicNow
        if now &- windowStart > 60_000_000_000 {
            if suppressed > 0 { logger.debug("\(label()): plug-in output: \(suppressed) more lines not logged") }
            windowStart = now
            linesInWindow = 0
            suppressed = 0
        }
        let line = String(decoding: partial[stream.rawValue], as: UTF8.self)
        partial[stream.rawValue].removeAll(keepingCapacity: true)
        linesInWindow += 1
        if linesInWindow <= 100 { logger.debug("\(label()): plug-in output: \(line)") } else { suppressed += 1 }
    }
}
