import Foundation
import PathwatchTestSupport
import Testing

/// `pathwatch plugins --try FILE --watch DURATION`: after the sample, an event-driven plug-in's
/// descriptor is watched and each event's observations are printed as they happen; a descriptor
/// the plug-in does not drain is throttled and reported, as the agent does; a plug-in that is not
/// event-driven is refused with the reason. The plug-in is the event fixture
/// (Tests/Fixtures/plugins/event_probe.c) watching a FIFO the test writes to.
@Suite(.onItsOwnThread) struct PluginTrialWatchTests {
    let pathwatch = TestEnvironment.pathwatchBinary.path

    func folder() throws -> (dir: URL, library: URL) {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        chmod(dir.path, 0o755)
        let library = try FixturePlugins.build("event_probe.c", as: "eventprobe", into: dir)
        return (dir, library)
    }

    @Test func eachEventIsPrintedAsItHappens() throws {
        let (dir, library) = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let fifo = dir.appendingPathComponent("events")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let trial = try BackgroundProcess([
            pathwatch, "plugins", "--try", library.path, "--probe-config", #"{"fifo": "\#(fifo.path)"}"#, "--watch",
            "4s",
        ])
        defer { trial.stop() }
        let watching = try #require(
            trial.waitForLine(timeout: 30) { $0 == "watch: serving the event descriptor's readiness for 4s" },
            "\(trial.outputLines)\n\(trial.errorOutput)")
        // The plug-in holds the FIFO open for reading and writing: this open does not wait.
        let writer = open(fifo.path, O_WRONLY | O_NONBLOCK)
        try #require(writer >= 0)
        let line = "link eth9 went down\n"
        #expect(write(writer, line, line.utf8.count) == line.utf8.count)
        close(writer)
        // Printed while the watch still runs, before its end is.
        let event = try #require(
            trial.waitForLine(from: watching.index, timeout: 3) { $0 == "  event  ok  link eth9 went down" },
            "\(trial.outputLines)")
        #expect(trial.outputLines[event.index - 1] == "event: 1 observation")
        #expect(
            !trial.outputLines.contains { $0.hasPrefix("watch: ") && $0.hasSuffix("served") },
            "the event came only at the end")
        #expect(trial.waitForExit(timeout: 30))
        #expect(trial.process.terminationStatus == 0, "\(trial.outputLines)")
        for expected in ["sample: 1 observation", "  sampled  ok  sampled", "watch: 1 event served", "destroy: ok"] {
            #expect(trial.outputLines.contains(expected), "missing \"\(expected)\" in \(trial.outputLines)")
        }
    }

    @Test func anUndrainedDescriptorIsThrottledAndReported() throws {
        let (dir, library) = try folder()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let drainNow = dir.appendingPathComponent("drain-now")
        let trial = try BackgroundProcess([
            pathwatch, "plugins", "--try", library.path, "--probe-config",
            #"{"drain": false, "drain_when": "\#(drainNow.path)"}"#,
            "--watch", "6s",
        ])
        defer { trial.stop() }
        let problem =
            "watch: event descriptor stays readable after handle_event: the plug-in does not drain it; served once a second"
        let throttled = try #require(
            trial.waitForLine(timeout: 30) { $0.hasPrefix(problem) }, "\(trial.outputLines.suffix(20))")
        try Data().write(to: drainNow)
        _ = try #require(
            trial.waitForLine(from: throttled.index, timeout: 10) {
                $0 == "watch: the event descriptor drains again; served as it becomes readable"
            },
            "\(trial.outputLines.suffix(20))")
        #expect(trial.waitForExit(timeout: 30))
        #expect(trial.process.terminationStatus == 1, "a plug-in that does not drain its descriptor fails the trial")
        #expect(
            trial.outputLines.contains(
                "the plug-in did not drain its event descriptor: handle_event must read it until it would block"))
        #expect(trial.outputLines.contains("destroy: ok"))
    }

    @Test func aPluginThatIsNotEventDrivenIsRefused() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let result = try run(
            [pathwatch, "plugins", "--try", dir.appendingPathComponent("libtestprobe.so").path, "--watch", "2s"],
            timeout: 60)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "watch: failed: --watch needs an event-driven plug-in; testprobe has no event_fd and handle_event"),
            "\(result.stdout)")
        #expect(!result.stdout.contains("create: ok"), "nothing else is tried: \(result.stdout)")
        let nonsense = try run([
            pathwatch, "plugins", "--try", dir.appendingPathComponent("libtestprobe.so").path, "--watch", "soon",
        ])
        #expect(nonsense.status == 64)
        #expect(nonsense.stderr.contains("--watch soon: expected a duration such as 30s or 2m"), "\(nonsense.stderr)")
    }
}
