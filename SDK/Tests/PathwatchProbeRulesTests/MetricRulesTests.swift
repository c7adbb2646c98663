import PathwatchProbeKit
import PathwatchProbeRules
import Testing

/// What a metric name may be and what it becomes in every exposition: the name rule, the unit
/// table, a declared metric's exposed name, and an undeclared one read from its suffix.
@Suite struct MetricRulesTests {
    @Test func aNameIsLowerCaseLettersDigitsAndUnderscoresFromALetter() {
        for good in ["a", "rx_bps", "total_ms", "x2", String(repeating: "a", count: MetricNameRule.maximumBytes)] {
            #expect(MetricNameRule.accepts(good), "\(good)")
        }
        for bad in [
            "", "Rx", "2x", "_x", "a-b", "a b", "é", String(repeating: "a", count: MetricNameRule.maximumBytes + 1),
        ] {
            #expect(!MetricNameRule.accepts(bad), "\(bad)")
        }
    }

    /// A series' name, as the status document writes it, reads back as its name and labels,
    /// escapes included; a key that is no such name is a name alone.
    @Test func aSeriesNameReadsBackAsItsNameAndLabels() {
        let labels: [(name: String, value: String)] = [("queue", "q0"), ("prio", "p\"\n\\0,}")]
        let written = MetricLabelRule.seriesName("depth", labels)
        #expect(written == #"depth{queue="q0",prio="p\"\n\\0,}"}"#)
        let read = MetricLabelRule.parsedSeriesName(written)
        #expect(read.name == "depth" && read.labels.map(\.name) == ["queue", "prio"])
        #expect(read.labels.map(\.value) == ["q0", "p\"\n\\0,}"])
        #expect(MetricLabelRule.parsedSeriesName("plain").name == "plain")
        #expect(MetricLabelRule.parsedSeriesName(#"odd{x=1}"#).name == #"odd{x=1}"#)
    }

    @Test func aUnitBecomesItsBaseUnitWithItsFactor() throws {
        let ms = try #require(MetricUnit.named("ms"))
        #expect(ms.baseSuffix == "seconds" && ms.scale == 1e-3 && ms.nagios == "ms" && ms.words == "in seconds")
        let bits = try #require(MetricUnit.named("bit/s"))
        #expect(bits.baseSuffix == "bytes_per_second" && bits.scale == 1.0 / 8)
        let percent = try #require(MetricUnit.named("%"))
        #expect(percent.baseSuffix == "ratio" && percent.scale == 0.01 && percent.words == "as a ratio from 0 to 1")
        // An annotation is a count; over "/s" a rate.
        #expect(MetricUnit.named("{packet}/s")?.baseSuffix == "per_second")
        #expect(MetricUnit.named("{request}")?.baseSuffix == "")
        #expect(MetricUnit.named("furlongs") == nil && MetricUnit.named("{Packet}") == nil)
        #expect(MetricUnit.known.contains("ms") && MetricUnit.known.contains("{annotation}/s"))
    }

    @Test func aDeclaredMetricIsExposedInItsBaseUnitAndACounterEndsInTotal() throws {
        let catalog = try MetricCatalog.checked([
            .gauge("total_ms", unit: "ms", help: "Round trip.", plot: .latency),
            .counter("carrier_changes", help: "Carrier changes."),
            .gauge("rx_pps", unit: "{packet}/s", help: "Packets received."),
            .gauge("used_pct", unit: "%", help: "Space used.", plot: .usage),
        ]).get()
        #expect(catalog.meaning(of: "total_ms").exposedName == "total_seconds")
        #expect(catalog.meaning(of: "total_ms").scale == 1e-3 && catalog.meaning(of: "total_ms").help == "Round trip.")
        #expect(catalog.meaning(of: "carrier_changes").exposedName == "carrier_changes_total")
        #expect(catalog.meaning(of: "rx_pps").exposedName == "rx_packets_per_second")
        #expect(catalog.meaning(of: "used_pct").exposedName == "used_ratio")
        // OpenTelemetry's names: without the unit word, without `_total` (the unit and the type say them).
        #expect(
            ["total_ms", "carrier_changes", "rx_pps", "used_pct"].map { catalog.meaning(of: $0).stem } == [
                "total", "carrier_changes", "rx_packets", "used",
            ])
        #expect(catalog.declaredMeaning(of: "other_ms") == nil)
        // Anything undeclared is read by its suffix: a gauge.
        let other = catalog.meaning(of: "other_ms")
        #expect(
            !other.isDeclared && other.kind == .gauge && other.exposedName == "other_seconds" && other.plot == .latency)
    }

    @Test func anUndeclaredNameIsAGaugeWithoutTotalAndItsUnitFromItsSuffix() {
        #expect(MetricMeaning(undeclared: "requests_total").exposedName == "requests")
        #expect(MetricMeaning(undeclared: "rx_bps").exposedName == "rx_bytes_per_second")
        #expect(MetricMeaning(undeclared: "rx_bps").plot == .throughput)
        #expect(
            MetricMeaning(undeclared: "rx_bps").stem == "rx"
                && MetricMeaning(undeclared: "requests_total").stem == "requests")
        #expect(MetricMeaning(undeclared: "queue_depth").unit == nil)
        #expect(MetricMeaning(undeclared: "rx_pps").stem != MetricMeaning(undeclared: "rx_bps").stem)
    }

    /// OpenTelemetry's names of one plug-in's declared metrics are distinct: a rate in bits and
    /// one in packets keep what they count, and of names that would still be one (bytes and a
    /// rate in bits of one thing) the first declared keeps it, the others are named as emitted.
    @Test func openTelemetryNamesOfDeclaredMetricsAreDistinct() throws {
        let catalog = try MetricCatalog.checked([
            .gauge("rx_bps", unit: "bit/s", help: "Bits."), .gauge("rx_pps", unit: "{packet}/s", help: "Packets."),
            .gauge("io_bytes", unit: "By", help: "Bytes moved."),
            .gauge("io_bps", unit: "bit/s", help: "Bits a second."),
            .gauge("size_bytes", unit: "By", help: "Size."),
        ]).get()
        #expect(
            ["rx_bps", "rx_pps", "io_bytes", "io_bps", "size_bytes"].map { catalog.meaning(of: $0).stem } == [
                "rx", "rx_packets", "io", "io_bps", "size",
            ])
    }

    @Test func declarationsThatCannotBeExposedAsDeclaredAreRefusedSayingWhy() {
        func refusal(_ declarations: [MetricDeclaration]) -> String {
            switch MetricCatalog.checked(declarations) {
            case .success: "accepted"
            case .failure(let why): why.description
            }
        }
        #expect(refusal([.gauge("Bad", help: "")]).hasPrefix("metrics[0]: name \"Bad\" is not [a-z]"))
        #expect(
            refusal([.gauge("x", unit: "furlongs", help: "")]).contains("unit \"furlongs\" is not one the agent knows"))
        #expect(refusal([.gauge("x", help: ""), .gauge("x", help: "")]) == "metrics[1]: x is declared twice")
        // `a_ms` in ms and `a_seconds` in s are one series, `a_seconds`.
        #expect(
            refusal([.gauge("a_ms", unit: "ms", help: ""), .gauge("a_seconds", unit: "s", help: "")])
                == "metrics[1]: a_seconds and a_ms would both be exposed as …_a_seconds: one series for two metrics")
        #expect(refusal([]) == "accepted")
        #expect((try? MetricCatalog.checked([]).get()) == .undeclared)
    }
}
