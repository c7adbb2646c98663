import Logging
import PathwatchClockTesting
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost
@testable import PathwatchSinkKit

/// A plug-in child's output in the log, on a clock the test moves: 100 lines a minute, the rest
/// counted and said once the minute is over, and not an instant before.
@Suite struct OutputLogClockTests {
    /// The lines a logger wrote, at every level.
    final class Lines: Sendable {
        let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
    }

    struct Capture: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        func log(event: LogEvent) { lines.list.withLock { $0.append("\(event.message)") } }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }

    static func lines(_ count: Int, _ word: String) -> ArraySlice<UInt8> {
        ArraySlice(Array((0..<count).map { "\(word) \($0)\n" }.joined().utf8))
    }

    @Test func aHundredLinesAMinuteAreLoggedAndTheRestCountedWhenTheMinuteIsOver() {
        let clock = ManualClock()
        let lines = Lines()
        let logger = AgentLogger(
            logger: Logger(label: "output") { _ in Capture(lines: lines) }, redactor: SecretRedactor())
        var log = OutputLog(label: { "probe p" }, logger: logger, clock: clock)
        log.append(Self.lines(150, "early"), from: .stdout)
        #expect(lines.all.count == 100)
        #expect(lines.all.last == "probe p: plug-in output: early 99")
        // A minute on, to the nanosecond, is still the same minute.
        clock.advance(by: 60_000_000_000)
        log.append(Self.lines(1, "still"), from: .stderr)
        #expect(lines.all.count == 100)
        clock.advance(by: 1)
        log.append(Self.lines(1, "later"), from: .stdout)
        #expect(
            Array(lines.all.suffix(2)) == [
                "probe p: plug-in output: 51 more lines not logged", "probe p: plug-in output: later 0",
            ], "\(lines.all.suffix(3))")
    }
}
