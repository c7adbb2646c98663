import CPathwatchProbe
import Foundation
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchProbeTesting
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// ProbeTester refuses exactly what the agent refuses, with the same words: the same plug-in
/// under ProbeTester, `pathwatch plugins --try`, the agent's own host inline, and `pathwatch
/// once` in both isolations — the parity table of docs/plugins.md, one row per mistake (a bad
/// metric name, two names for one series, a metric twice, NaN, a bad state, bad keys, a key
/// twice, labels over the bound, a series twice, a label of the agent's; the overrun, undeclared
/// metrics and crashes have tests of their own below and in CrashNamingTests). Before, the tester kept empty, over-long and tab-carrying keys the agent
/// refused (the check vanished in production), refused a whole observation for a NaN the agent
/// only dropped, and had no word for a metric name the agent rewrote.
@Suite(.serialized, .onItsOwnThread) struct ProbeTesterParityTests {
    /// Every mistake the fixture makes, and a problem each must give.
    static let mistakes: [(mode: String, expected: String)] = [
        ("names", #"check "c": metrics[0]: name "a b" is not [a-z][a-z0-9_]* of at most 64 bytes; dropped"#),
        (
            "clash",
            "check \"c\": metrics x_ms and x_seconds would both be exposed as …_x_seconds: one series for two metrics; x_ms kept; dropped"
        ),
        ("twice", "check \"c\": metric n is emitted twice in one observation; the first kept; dropped"),
        ("nan", "check \"c\": metric n is not finite (nan); dropped"),
        ("refused", #"check "r0": state 9 is not one of ok(0), warning(1), critical(2), unknown(3); refused"#),
        ("keytwice", #"check "k": a second observation with this key in one call; refused, the first kept"#),
        ("bound", "check \"c\": metric wide: 9 labels, more than 8; dropped"),
        ("reserved", "check \"c\": metric q: label probe is the agent's own (check, plugin, probe, state); dropped"),
        ("again", #"check "c": metric q{queue="spam"} is emitted twice in one observation; the first kept; dropped"#),
        (
            "keys",
            "observation: key is empty, not UTF-8 or not printable; a key is 1 to 256 characters of printable UTF-8; refused"
        ),
    ]

    @Test(arguments: mistakes.map(\.mode)) func theTesterAndTheInlineHostSayTheSame(mode: String) throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let expected = try #require(Self.mistakes.first { $0.mode == mode }).expected
        // The agent's host, in this process.
        let plugin = try PluginLoader.load(fixture.library.path).get()
        let instance = try ProbeInstance.create(
            plugin: plugin, configJSON: #"{"mode": "\#(mode)"}"#, deadline: .after(.seconds(5))
        ).get()
        defer { instance.destroy() }
        let agent = instance.sample(by: .after(.seconds(5)))
        #expect(agent.problems.contains(expected), "the agent said \(agent.problems)")
        // ProbeTester, through the same descriptor.
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "\#(mode)"}"#)
        let report = try tester.sampleReport()
        #expect(report.problems == agent.problems)
        #expect(report.refused == agent.refused)
        #expect(report.emitted.map(\.key) == agent.observations.map(\.key))
        #expect(
            report.emitted.map { $0.metrics.keys.sorted() }
                == agent.observations.map { $0.metrics.map(\.seriesName).sorted() })
        // A test that samples plainly fails with the agent's first words.
        do {
            _ = try tester.sample()
            Issue.record("ProbeTester passed what the agent refuses: \(agent.problems)")
        } catch {
            #expect(error.message.hasPrefix(agent.problems[0]), "\(error.message)")
        }
    }

    /// `plugins --try` prints the same words, and fails, for every row.
    @Test func theTrialSaysTheSameWords() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        for (mode, expected) in Self.mistakes {
            let result = try run([
                TestEnvironment.pathwatchBinary.path, "plugins", "--try", fixture.library.path, "--probe-config",
                #"{"mode": "\#(mode)"}"#,
            ])
            #expect(result.status == 1, "\(mode): exit \(result.status)")
            #expect(result.stdout.contains("  \(expected)\n"), "\(mode): \(result.stdout)")
        }
    }

    /// The agent binary says the same words in its log, in both isolations.
    @Test(arguments: ["inline", "process"]) func theAgentLogsTheSameWords(isolation: String) throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        for (mode, expected) in Self.mistakes {
            let result = try run([
                TestEnvironment.pathwatchBinary.path, "once", "--config",
                fixture.config(mode: mode, isolation: isolation).path,
            ])
            #expect(result.stderr.contains("probe m: \(expected)"), "\(mode), \(isolation): \(result.stderr)")
        }
    }

    /// Names outside the rule are never rewritten into another's: "a b" is not "a_b", and
    /// "témpérature_℃" does not become "t_mp_rature". Only the one good name is kept.
    @Test func namesOutsideTheRuleAreLeftOutNotRenamed() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "names"}"#)
        let report = try tester.sampleReport()
        #expect(report.emitted.first?.metrics == ["a_b": 2])
        #expect(report.problems.count == 5, "\(report.problems)")
        #expect(report.problems.contains { $0.contains("\"témpérature_℃\" is not [a-z][a-z0-9_]*") })
        #expect(report.problems.contains { $0.contains("\"\" is not") })
        #expect(report.problems.contains { $0.contains("\"Upper\" is not") })
    }

    /// A metric's own labels: two series of one name kept, a counter said at run time kept with
    /// its help, and each label the agent cannot carry left out with the same words in the
    /// tester and the agent.
    @Test func seriesOfTheirOwnLabelsAreKeptAndBadOnesLeftOut() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "labels"}"#)
        let report = try tester.sampleReport()
        #expect(report.emitted.first?.metrics == [#"q{queue="spam"}"#: 1, #"q{queue="mail"}"#: 2, "jobs": 8])
        let said = [
            #"metric q{queue="spam"} is emitted twice in one observation; the first kept; dropped"#,
            "metric wide: 9 labels, more than 8; dropped",
            #"metric under: label name "__x" is not [a-z_][a-z0-9_]* of at most 64 bytes, not starting "__"; dropped"#,
            "metric mine: label probe is the agent's own (check, plugin, probe, state); dropped",
            #"metric site{site="s"}: label site is also the check's label; dropped"#,
        ].map { #"check "c": "# + $0 }
        #expect(report.problems.sorted() == said.sorted(), "\(report.problems)")
        let plugin = try PluginLoader.load(fixture.library.path).get()
        let instance = try ProbeInstance.create(
            plugin: plugin, configJSON: #"{"mode": "labels"}"#, deadline: .after(.seconds(5))
        ).get()
        defer { instance.destroy() }
        let agent = instance.sample(by: .after(.seconds(5)))
        #expect(agent.problems.sorted() == said.sorted())
        let jobs = agent.observations.first?.metrics.first { $0.name == "jobs" }
        #expect(jobs?.kind == .counter && jobs?.help == "Jobs taken.")
    }

    /// A plug-in built before `pw_metric` grew hands 24-byte metrics: they load and report
    /// unchanged, under ProbeTester and the agent in both isolations.
    @Test(arguments: ["inline", "process"]) func metricsOfTheFirstLayoutAreKept(isolation: String) throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "first"}"#)
        let report = try tester.sampleReport()
        #expect(report.emitted.first?.metrics == ["lat_ms": 12.5, "n": 7] && report.problems.isEmpty)
        let result = try run([
            TestEnvironment.pathwatchBinary.path, "once", "--config",
            fixture.config(mode: "first", isolation: isolation).path,
        ])
        let doc = try parseJSONObject(result.stdout)
        let check = (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == "m/c" }
        #expect(
            check?["metrics"] as? [String: Double] == ["lat_ms": 12.5, "n": 7], "\(result.stdout) \(result.stderr)")
    }

    /// A metric emitted without a declaration: the agent takes it and says so once per plug-in
    /// and name, at info; strict mode fails on it, in ProbeTester and `--try` with the same words.
    @Test func anUndeclaredMetricFailsOnlyInStrictMode() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let words =
            "check \"c\": metric x_ms is not declared (strict: every metric emitted must be in the descriptor's table)"
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "clash"}"#)
        #expect(!(try tester.sampleReport()).problems.contains(words))
        tester.strict = true
        #expect((try tester.sampleReport()).problems.contains(words))
        let plain = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "plain"}"#)
        plain.strict = true
        #expect((try plain.sampleReport()).problems.isEmpty, "every metric of plain is declared")

        let strictTrial = try run([
            TestEnvironment.pathwatchBinary.path, "plugins", "--try", fixture.library.path, "--probe-config",
            #"{"mode": "clash"}"#, "--strict",
        ])
        #expect(strictTrial.status == 1 && strictTrial.stdout.contains(words), "\(strictTrial)")
        #expect(strictTrial.stdout.contains("1 metric is not declared (--strict); the agent takes it"))
        let plainTrial = try run([
            TestEnvironment.pathwatchBinary.path, "plugins", "--try", fixture.library.path, "--probe-config",
            #"{"mode": "plain"}"#, "--strict",
        ])
        #expect(plainTrial.status == 0, "\(plainTrial)")

        // The agent: once per plug-in and name, whatever the probes and samples.
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "isolation": "inline"}, "probes": [
              {"id": "m", "plugin": "metrics", "config": {"mode": "clash"}},
              {"id": "n", "plugin": "metrics", "config": {"mode": "clash"}}]}
            """, in: fixture.dir, name: "config-undeclared.json")
        let agent = try run([TestEnvironment.pathwatchBinary.path, "once", "--config", config.path])
        let said = agent.stderr.components(separatedBy: "emits metric x_ms without declaring it").count - 1
        #expect(said == 1, "\(agent.stderr)")
        #expect(agent.stderr.contains(" info "), "said at info: \(agent.stderr)")
    }

    /// Every observation refused: the probe is unknown with the reason, and `once` exits 3,
    /// in both isolations. Before: `ok` with zero checks, exit 0.
    @Test(arguments: ["inline", "process"]) func aProbeWhoseEveryObservationIsRefusedIsUnknown(isolation: String) throws
    {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let result = try run([
            TestEnvironment.pathwatchBinary.path, "once", "--config",
            fixture.config(mode: "refused", isolation: isolation).path,
        ])
        #expect(result.status == 3, "exit \(result.status): \(result.stdout) \(result.stderr)")
        let doc = try parseJSONObject(result.stdout)
        let check = (doc["checks"] as? [[String: Any]])?.first { ($0["id"] as? String) == "m" }
        #expect(check?["state"] as? String == "unknown", "\(result.stdout)")
        #expect(
            (check?["message"] as? String)?.hasPrefix("all 3 of its observations were refused: check \"r0\": state 9")
                == true, "\(result.stdout)")
    }

    /// The tester holds a call to its deadline as the host does: a 3 s sample given a 1 s
    /// deadline fails with the agent's words, instead of passing. The agent says the same.
    @Test func aSampleThatOverrunsItsDeadlineFailsTheTest() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "slow"}"#)
        #expect(throws: ProbeTester.Failure(CallGrace.overran(.seconds(1)))) { try tester.sample(within: .seconds(1)) }
        // The instance is not called again while its call may still be running.
        #expect(throws: ProbeTester.Failure.self) { try tester.sample(within: .seconds(5)) }
        // The agent, in both isolations: the check and the probe's last_error say the same words,
        // and the log says nothing false (no "returned" of a call that was killed).
        let words = CallGrace.overran(.seconds(1))
        for isolation in ["inline", "process"] {
            let agent = try run([
                TestEnvironment.pathwatchBinary.path, "once", "--config",
                fixture.config(mode: "slow", isolation: isolation, timeout: "1s").path,
            ])
            let doc = try parseJSONObject(agent.stdout)
            let check = (doc["checks"] as? [[String: Any]])?.first
            let probe = (doc["probes"] as? [[String: Any]])?.first
            #expect((check?["message"] as? String)?.hasPrefix(words) == true, "\(isolation): \(agent.stdout)")
            #expect((probe?["last_error"] as? String)?.hasPrefix(words) == true, "\(isolation): \(agent.stdout)")
            #expect(agent.stderr.contains("sample \(words)") && !agent.stderr.contains("returned"), "\(agent.stderr)")
        }
        // `--try` with the probe's timeout: the same words, and the trial fails.
        let trial = try run([
            TestEnvironment.pathwatchBinary.path, "plugins", "--try", fixture.library.path, "--probe-config",
            #"{"mode": "slow"}"#, "--timeout", "1",
        ])
        #expect(trial.status == 1 && trial.stdout.contains("plug-in sample \(words); the child was killed"), "\(trial)")
        // Within the timeout, it passes.
        let inTime = try run([
            TestEnvironment.pathwatchBinary.path, "plugins", "--try", fixture.library.path, "--probe-config",
            #"{"mode": "slow"}"#, "--timeout", "4",
        ])
        #expect(inTime.status == 0, "\(inTime)")
    }

    /// The header lets a plug-in emit from threads of its own during the call: 8 threads at
    /// once, 400 observations, all kept, every run. Before: the tester crashed 3 runs of 3.
    @Test func emitsFromEightThreadsAtOnceAreAllKept() throws {
        let fixture = try MetricsFixture()
        defer { fixture.remove() }
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "threads"}"#)
        for _ in 0..<3 {
            let emitted = try tester.sample()
            #expect(emitted.count == 400)
            #expect(Set(emitted.map(\.key)).count == 400)
        }
    }

    /// An emit after the call returned is refused (PW_ERR), as the agent refuses it, and never
    /// counted in the next call. Before: accepted into the next call's results, and from a C
    /// thread a write into freed memory.
    @Test func anEmitAfterTheCallReturnedIsRefused() throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let library = try FixturePlugins.build("boundary_probe.c", as: "boundary", into: dir)
        let fixture = MetricsFixtureLibrary(library: library)
        let tester = try ProbeTester(descriptor: try fixture.descriptor(), config: #"{"mode": "late_emit"}"#)
        _ = try tester.sample()
        var seen: [Emitted] = []
        // The late emit lands 100 ms after the first sample returned; each sample reports
        // what the previous one's late emit returned.
        let refused = waitUntil(timeout: 10) {
            // A report, not a plain sample: the late emit before it is a problem of its own.
            seen = (try? tester.sampleReport().emitted) ?? []
            return seen.contains { $0.message == "late emit returned -1" }
        }
        #expect(refused, "\(seen)")
        #expect(!seen.contains { $0.key == "late" })
        // And it is said, with a call after it, in the agent's words (every sample makes one).
        var problems: [String] = []
        #expect(
            waitUntil(timeout: 10) {
                problems = (try? tester.sampleReport().problems) ?? []
                return !problems.isEmpty
            })
        #expect(problems == [LateEmits.problem], "\(problems)")
    }

    /// The agent says a late emit once per probe, in both isolations, however many samples
    /// make one; the probe's last_error says it after the call that found it.
    @Test(arguments: ["inline", "process"]) func theAgentSaysALateEmitOncePerProbe(isolation: String) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        chmod(dir.path, 0o755)
        _ = try FixturePlugins.build("boundary_probe.c", as: "boundary", into: dir)
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["."], "interval": "300ms", "isolation": "\(isolation)"}, "probes": [
              {"id": "b", "plugin": "boundary", "config": {"mode": "late_emit"}}]}
            """, in: dir, name: "config.json")
        let agent = try BackgroundProcess([TestEnvironment.pathwatchBinary.path, "run", "--config", config.path])
        defer { agent.stop() }
        let words = "probe b: \(LateEmits.problem)"
        #expect(waitUntil(timeout: 30) { agent.errorOutput.contains(words) }, "\(agent.errorOutput.suffix(2000))")
        // Five more samples, each with a late emit before it: still said once.
        Thread.sleep(forTimeInterval: 1.5)
        #expect(agent.errorOutput.components(separatedBy: words).count == 2, "\(agent.errorOutput.suffix(2000))")
    }
}

/// Any fixture library opened in this process; libraries are never closed, as the agent never
/// closes them.
struct MetricsFixtureLibrary {
    let library: URL
    func descriptor() throws -> UnsafePointer<pw_probe_descriptor> {
        guard let handle = dlopen(library.path, RTLD_NOW | RTLD_LOCAL),
            let symbol = dlsym(handle, PW_PROBE_ENTRY_SYMBOL)
        else {
            throw TestFailure("cannot open \(library.path): \(dlerror().map { String(cString: $0) } ?? "")")
        }
        guard let descriptor = unsafeBitCast(symbol, to: pw_probe_entry_fn.self)() else {
            throw TestFailure("no descriptor")
        }
        return descriptor
    }
}
