import PathwatchJSON
import PathwatchProbeKit
import Testing

/// The plain values a probe author builds with: states in their severity order, globs as
/// operators write them, numbers as messages show them, metric declarations and config errors.
@Suite struct ProbeKitValueTests {
    @Test func theWorstStateIsCriticalThenUnknownThenWarning() {
        #expect(CheckState.allCases.max() == .critical)
        #expect(CheckState.allCases.sorted() == [.ok, .warning, .unknown, .critical])
        // The raw values are Nagios's exit codes, not the severity order.
        #expect(CheckState.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(CheckState.allCases.map(\.name) == ["ok", "warning", "critical", "unknown"])
    }

    @Test func aGlobMatchesAsTheShellDoesAndALiteralOnlyItself() {
        #expect(Glob("eth*").matches("eth0") && !Glob("eth*").matches("veth0"))
        #expect(Glob("wlan?").matches("wlan1") && !Glob("wlan?").matches("wlan10"))
        #expect(Glob("veth[0-9]").matches("veth7") && !Glob("veth[0-9]").matches("vetha"))
        #expect(Glob("lo").isLiteral && Glob("lo").matches("lo") && !Glob("lo").matches("lo0"))
        // A backslash escapes: `a\b` is a glob that matches `ab`, not a name of its own.
        #expect(!Glob(#"a\b"#).isLiteral && Glob(#"a\b"#).matches("ab"))
        #expect([Glob("docker*"), Glob("lo")].matchesAny("docker0"))
        #expect(![Glob("docker*"), Glob("lo")].matchesAny("eth0"))
    }

    @Test func globsAreOneWhenTheirPatternsAre() {
        #expect(Glob("eth*") == Glob("eth*") && Glob("eth*") != Glob("eth?"))
        #expect(Set([Glob("a"), Glob("a"), Glob("b")]).count == 2)
        #expect("\(Glob("en*"))" == "en*")
    }

    @Test func decimalsAreTrimmedWithoutTrailingZeros() {
        #expect(DecimalText.trimmed(5, decimals: 2) == "5")
        #expect(DecimalText.trimmed(1.5, decimals: 2) == "1.5")
        #expect(DecimalText.trimmed(0.254, decimals: 2) == "0.25")
        #expect(DecimalText.trimmed(0.256, decimals: 2) == "0.26")
        #expect(DecimalText.trimmed(2.9999, decimals: 2) == "3")
    }

    @Test func aDeclarationSaysKindUnitHelpAndPlot() {
        let latency = MetricDeclaration.gauge("total_ms", unit: "ms", help: "Round trip.", plot: .latency)
        #expect(
            latency
                == MetricDeclaration(name: "total_ms", kind: .gauge, unit: "ms", help: "Round trip.", plot: .latency))
        let changes = MetricDeclaration.counter("carrier_changes", help: "Carrier changes.")
        #expect(changes.kind == .counter && changes.unit == nil && changes.plot == .none)
        // The raw values are the ABI's (pathwatch_probe.h).
        #expect(MetricDeclaration.Kind.counter.rawValue == 1 && MetricDeclaration.Plot.usage.rawValue == 3)
    }

    @Test func aMetricIsAValueWhateverItCarries() {
        // A plain gauge keeps nothing beyond its name and value (every check's last observation
        // is held by the agent, so the size is per metric per check).
        #expect(MemoryLayout<Metric>.stride == 32)
        var plain = Metric("latency", 0.25)
        #expect(plain.labels.isEmpty && plain.kind == .gauge && plain.help == nil)
        var counter = Metric("jobs", 3, kind: .counter)
        let other = Metric("errors", 1, kind: .counter)
        #expect(counter.kind == .counter && other.kind == .counter && counter.labels.isEmpty)
        // Two metrics made alike share what they carry; changing one leaves the other as it was.
        counter.labels = [("queue", "spam")]
        #expect(counter.kind == .counter && counter.labels.map(\.value) == ["spam"])
        #expect(other.labels.isEmpty && other.kind == .counter && other.help == nil)
        var copy = counter
        copy.help = "Jobs done."
        copy.labels.append(("worker", "b"))
        #expect(counter.help == nil && counter.labels.count == 1)
        #expect(copy.help == "Jobs done." && copy.labels.map(\.name) == ["queue", "worker"] && copy.kind == .counter)
        copy.kind = .gauge
        #expect(copy.kind == .gauge && copy.help == "Jobs done." && copy.labels.count == 2)
        plain.help = "Seconds."
        plain.help = nil
        #expect(plain.help == nil && plain.kind == .gauge && plain.isSameSeries(as: Metric("latency", 9)))
    }

    @Test func aConfigErrorNamesThePathOfTheValue() {
        let error = ProbeConfigError("targets[2].url", "expected an http or https URL")
        #expect(error.description == "targets[2].url: expected an http or https URL")
        #expect(ProbeSampleError("no route").description == "no route")
    }

    @Test func flagsCombine() {
        let flags: ProbeFlags = [.needsNetwork, .sampleOnPathChange]
        #expect(flags.contains(.needsNetwork) && !flags.contains(.eventDriven))
        #expect(flags.rawValue == 0b101)
    }

    @Test func aConfigIsDecodedStrictlyWithThePathOfWhatIsWrong() throws {
        struct Config: Decodable {
            var interval: ConfigDuration
            var names: [Glob]
        }
        let config = try ProbeExport.decodeConfig(Config.self, from: #"{"interval": "1m30s", "names": ["eth*", "lo"]}"#)
        #expect(config.interval == .seconds(90) && config.names == [Glob("eth*"), Glob("lo")])
        #expect(throws: ProbeConfigError.self) {
            try ProbeExport.decodeConfig(Config.self, from: #"{"interval": "1m", "names": [], "extra": 1}"#)
        }
        do {
            _ = try ProbeExport.decodeConfig(Config.self, from: #"{"interval": "soon", "names": []}"#)
            Issue.record("a duration of \"soon\" was accepted")
        } catch {
            #expect(error.path.description == "interval", "\(error)")
        }
    }

    @Test func aDeadlineLeavesAMarginForReporting() {
        let deadline = Deadline.after(.seconds(10))
        #expect(!deadline.hasPassed && deadline.remaining <= .seconds(10))
        // A wait shorter than the time left is allowed whole; a longer one is cut, less the margin.
        #expect(deadline.allowing(.seconds(1)) == .seconds(1))
        let cut = deadline.allowing(.seconds(60))
        // Less than 10 s is left by now, and the margin kept back is at most 100 ms of it.
        #expect(
            cut < .seconds(10)
                && cut.nanoseconds >= ConfigDuration.seconds(9).nanoseconds - Deadline.maximumMargin.nanoseconds)
        let past = Deadline(monotonicNanoseconds: 0)
        #expect(
            past.hasPassed && past.remaining == .init(nanoseconds: 0)
                && past.allowing(.seconds(1)) == .init(nanoseconds: 0))
    }
}
