import Testing

@testable import ExecProbe

/// The performance data grammar of the Nagios plug-in guidelines, with the shapes real plug-ins
/// print and the malformed ones a parser must survive.
struct PerfDataParserTests {
    @Test func aFullItemHasValueUnitThresholdsAndBounds() {
        let parsed = PerfDataParser.parse("time=0.012s;1.000;5.000;0.000;10.000")
        #expect(parsed.problems == [])
        #expect(
            parsed.data == [
                PerfDatum(
                    label: "time", value: 0.012, unit: "s", warn: "1.000", crit: "5.000", min: "0.000", max: "10.000")
            ])
    }

    @Test func severalItemsAndEmptyFields() {
        let parsed = PerfDataParser.parse("load1=0.50;15;30;0 load5=0.4;;;0; load15=0.3")
        #expect(parsed.problems == [])
        #expect(parsed.data.map(\.label) == ["load1", "load5", "load15"])
        #expect(parsed.data[1].warn == nil && parsed.data[1].min == "0")
        #expect(parsed.data[2].value == 0.3)
    }

    @Test func quotedLabelsHoldSpacesEqualsAndDoubledQuotes() {
        let parsed = PerfDataParser.parse("'disk /var'=10MB 'it''s=x'=3 '/'=1GB;;;0;2")
        #expect(parsed.problems == [])
        #expect(parsed.data.map(\.label) == ["disk /var", "it's=x", "/"])
        #expect(parsed.data.map(\.unit) == ["MB", "", "GB"])
    }

    @Test func undeterminedValuesAreKeptWithoutAValue() {
        let parsed = PerfDataParser.parse("rta=U pl=0%")
        #expect(parsed.data.first?.value == nil)
        #expect(parsed.data.last?.value == 0)
    }

    @Test(arguments: [
        ("noequals", "no '='"), ("'open=1", "unterminated quote"), ("x=abc", "is not a number"), ("=5", "empty label"),
        ("x=", "no value"), ("x=1;2;3;4;5;6", "more than value"), ("x=1,5", "not a number with a unit"),
        ("'q'5", "expected = after the label"),
    ])
    func malformedItemsAreProblemsNotFailures(text: String, problem: String) {
        let parsed = PerfDataParser.parse(text + " good=1")
        #expect(parsed.problems.count == 1)
        #expect(parsed.problems.first?.contains(problem) == true, "\(parsed.problems)")
        // What follows a bad item is still read (an unterminated quote swallows the rest).
        if problem != "unterminated quote" { #expect(parsed.data.map(\.label) == ["good"]) }
    }

    @Test func theFirstLineIsTheMessageAndLongOutputCarriesMorePerfData() {
        let output = NagiosOutput("DISK OK - free space | /=10MB;;;0\nline two\nline three | /var=20MB\n/home=30MB\n")
        #expect(output.message == "DISK OK - free space")
        #expect(PerfDataParser.parse(output.perfData).data.map(\.label) == ["/", "/var", "/home"])
        #expect(NagiosOutput("OK\r\n").message == "OK")
        #expect(NagiosOutput("").message == "")
    }

    /// ASCII output is read as bytes (nearly every check's), anything else as Characters: on
    /// ASCII the two agree, line ends, trailing blank lines and whitespace included.
    @Test(arguments: [
        "OK - fine\n", "OK\r", "OK\r\r\nmore | a=1\n", "\t OK \u{0B}| a=1 | b=2\n \n\t\n", "|a=1", "\n\n", "",
        "OK | a=1\r\nlong\r\nlong | b=2\r\nc=3\r\n", "WARN|\nx|y\n\u{0C}", "a\rb\n\r\n \r\n",
    ])
    func asciiIsReadAsCharactersAre(_ text: String) {
        #expect(NagiosOutput.readASCII(text) == NagiosOutput.readCharacters(text))
        #expect(NagiosOutput.readASCII(text + "é") == nil)
    }
}

struct MetricNamesTests {
    @Test func labelsBecomeRuleAbidingNamesWithTheirUnitSuffix() {
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let data = PerfDataParser.parse(
            "'/'=1MB;2;3;0;4 'Time Taken'=5ms 'load-1'=0.5 9lives=1 pl=3% size=2KB ratio=1s"
        ).data
        let metrics = PerfMetrics.metrics(of: data, names: &names, problems: &problems)
        #expect(problems == [])
        let byName = Dictionary(uniqueKeysWithValues: metrics.map { ($0.name, $0.value) })
        #expect(byName["root_bytes"] == 1_048_576)
        #expect(byName["root_warn_bytes"] == 2_097_152)
        #expect(byName["root_max_bytes"] == 4_194_304)
        #expect(byName["time_taken_ms"] == 5)
        #expect(byName["load_1"] == 0.5)
        #expect(byName["m_9lives"] == 1)
        #expect(byName["pl_pct"] == 3)
        #expect(byName["size_bytes"] == 2_048)
        #expect(byName["ratio_seconds"] == 1)
    }

    @Test func clashesAreReportedAndTheFirstKeepsTheName() {
        var names = MetricNames(reserved: ExecProbe.metrics.map(\.name))
        var problems: [String] = []
        // `a b` and `a_b` sanitize alike; `t` in ms and in s expose one `t_seconds` series;
        // `command_duration` in ms is the probe's own.
        let data = PerfDataParser.parse("'a b'=1;5 a_b=2;6 t=1ms t=2s command_duration=3ms").data
        let metrics = PerfMetrics.metrics(of: data, names: &names, problems: &problems)
        #expect(metrics.map(\.name) == ["a_b", "a_b_warn", "t_ms"])
        #expect(problems.count == 3)
        #expect(problems[0] == "'a_b' and 'a b' both become metric a_b: only the first is reported")
    }

    @Test func longLabelsAreCutDeterministicallyAndStayDistinct() {
        let a = String(repeating: "x", count: 100) + "a"
        let b = String(repeating: "x", count: 100) + "b"
        let nameA = MetricNames.name(for: a, part: "warn", suffix: "bytes")
        let nameB = MetricNames.name(for: b, part: "warn", suffix: "bytes")
        #expect(nameA.utf8.count <= 64 && nameB.utf8.count <= 64)
        #expect(nameA != nameB)
        #expect(nameA == MetricNames.name(for: a, part: "warn", suffix: "bytes"))
        #expect(nameA.hasSuffix("_warn_bytes"))
    }

    @Test func unknownUnitsAreSaid() {
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let metrics = PerfMetrics.metrics(
            of: PerfDataParser.parse("signal=-60dBm c=5c").data, names: &names, problems: &problems)
        #expect(metrics.map(\.name) == ["signal", "c"])
        // Nagios's `c` is a counter, said as the metric's kind.
        #expect(metrics.map(\.kind) == [.gauge, .counter])
        #expect(problems == ["'signal': unit \"dBm\" unknown, reported as a plain number"])
    }
}

struct PrometheusTextTests {
    @Test func samplesKeepTheirLabelsKindsAndHelp() {
        let parsed = PrometheusText.parse(
            """
            # HELP x Things seen,\\nby kind.
            # TYPE x gauge
            x{b="2",a="one"} 3 1700
            x{a="two"} 4
            # TYPE jobs counter
            jobs_total 5
            # TYPE y_total counter
            y_total 6
            z NaN
            bad line here
            """)
        #expect(parsed.samples.count == 5)
        #expect(parsed.problems == ["line 10: value \"line\" of bad is not a number"])
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let metrics = PrometheusText.metrics(of: parsed, names: &names, problems: &problems)
        #expect(metrics.map(\.seriesName) == [#"x{a="one",b="2"}"#, #"x{a="two"}"#, "jobs_total", "y_total"])
        #expect(metrics.map(\.kind) == [.gauge, .gauge, .counter, .counter])
        #expect(metrics[0].help == "Things seen, by kind.")
        #expect(problems.count == 1 && problems[0].contains("not a finite value"))
    }

    /// Labels the agent keeps for itself are renamed as Prometheus renames a scraped label that
    /// clashes with a target's; labels past the bound, and a series given twice, are said.
    @Test func labelsTheAgentCannotCarryAreRenamedOrSaid() {
        let nine = (1...9).map { "l\($0)=\"v\"" }.joined(separator: ",")
        let parsed = PrometheusText.parse(
            "q{probe=\"p\",Command=\"c\"} 1\nq{probe=\"p\",Command=\"c\"} 2\nwide{\(nine)} 3\nlong{a=\"\(String(repeating: "v", count: 300))\"} 4\n"
        )
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let metrics = PrometheusText.metrics(of: parsed, names: &names, problems: &problems)
        #expect(metrics.map(\.seriesName) == [#"q{exported_command="c",exported_probe="p"}"#])
        #expect(problems.count == 3, "\(problems)")
        #expect(problems[0].contains("is given twice: the first kept"), "\(problems)")
        #expect(problems[1].contains("9 labels, more than 8, left out"), "\(problems)")
        #expect(problems[2].contains("value of 300 bytes, more than 256, left out"), "\(problems)")
    }

    /// `legacy_names`: 0.1.0's folded names and gauges, for one release.
    @Test func legacyNamesFoldLabelsAsBefore() {
        let parsed = PrometheusText.parse("# TYPE jobs_total counter\njobs_total 5\nx{b=\"2\",a=\"one\"} 3\n")
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let metrics = PrometheusText.foldedMetrics(of: parsed.samples, names: &names, problems: &problems)
        #expect(metrics.map(\.seriesName) == ["jobs_total", "x_one_2"])
        #expect(metrics.allSatisfy { $0.kind == .gauge && $0.labels.isEmpty })
        var perfNames = MetricNames(reserved: [])
        let perf = PerfMetrics.metrics(
            of: PerfDataParser.parse("c=5c").data, names: &perfNames, problems: &problems, legacyNames: true)
        #expect(perf.map(\.kind) == [.gauge])
    }

    /// Two families whose names the agent's rule makes one still clash, said with both names.
    @Test func familiesThatBecomeOneNameClash() {
        let parsed = PrometheusText.parse("a_b{x=\"1\"} 1\na:b{y=\"1\"} 2\n")
        var names = MetricNames(reserved: [])
        var problems: [String] = []
        let metrics = PrometheusText.metrics(of: parsed, names: &names, problems: &problems)
        #expect(metrics.map(\.seriesName) == [#"a_b{x="1"}"#])
        #expect(problems == ["'a:b' and 'a_b' both become metric a_b: only the first is reported"])
    }
}
