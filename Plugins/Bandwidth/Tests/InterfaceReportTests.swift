import PathwatchProbeKit
import Testing

@testable import BandwidthProbe

@Suite struct InterfaceReportTests {
    let report = InterfaceReport(thresholds: Thresholds(), labels: [("source", "netlink")])

    /// Rates over a 2-second window from per-second figures.
    func rates(rxBps: Double, txBps: Double, rxErrors: Double = 0, txDropped: Double = 0) -> InterfaceRates {
        InterfaceRates(
            windowSeconds: 2,
            deltas: InterfaceCounters(
                rxBytes: UInt64(rxBps / 8 * 2), rxPackets: 200, rxErrors: UInt64(rxErrors * 2),
                txBytes: UInt64(txBps / 8 * 2), txPackets: 100, txDropped: UInt64(txDropped * 2)))
    }

    func metric(_ observation: Observation, _ name: String) -> Double? {
        observation.metrics.first { $0.name == name }?.value
    }

    @Test func messageAndMetricsWithAKnownSpeed() {
        let o = report.observation(interface: "eth0", rates: rates(rxBps: 7_900_000, txBps: 120_000), speedMbps: 10)
        #expect(o.key == "eth0")
        #expect(o.state == .ok)
        #expect(o.message == "rx 7.9 Mb/s (79%), tx 120 kb/s (1.2%)")
        #expect(metric(o, "rx_bps") == 7_900_000)
        #expect(metric(o, "tx_bps") == 120_000)
        #expect(metric(o, "rx_pps") == 100)
        #expect(metric(o, "tx_pps") == 50)
        #expect(metric(o, "rx_util_pct") == 79)
        #expect(metric(o, "tx_util_pct") == 1.2)
        #expect(metric(o, "window_ms") == 2_000)
        #expect(
            o.metrics.map(\.name) == [
                "rx_bps", "tx_bps", "rx_pps", "tx_pps", "rx_errors_ps", "tx_errors_ps", "rx_dropped_ps",
                "tx_dropped_ps",
                "rx_util_pct", "tx_util_pct", "window_ms",
            ])
        #expect(o.labels.map(\.name) == ["source"])
    }

    @Test func withoutASpeedThereIsNoUtilisation() {
        let o = report.observation(interface: "wlan0", rates: rates(rxBps: 960, txBps: 0), speedMbps: nil)
        #expect(o.message == "rx 960 b/s, tx 0 b/s")
        #expect(metric(o, "rx_util_pct") == nil)
        #expect(metric(o, "tx_util_pct") == nil)
    }

    @Test func receiveAndTransmitAreJudgedSeparately() {
        // Uploading at 96 % of 100 Mb/s is critical even with an idle download.
        let up = report.observation(interface: "eth0", rates: rates(rxBps: 1_000, txBps: 96_000_000), speedMbps: 100)
        #expect(up.state == .critical)
        #expect(up.message.hasSuffix("; tx utilisation 96% >= 95%"))
        let down = report.observation(interface: "eth0", rates: rates(rxBps: 85_000_000, txBps: 0), speedMbps: 100)
        #expect(down.state == .warning)
        #expect(down.message.hasSuffix("; rx utilisation 85% >= 80%"))
    }

    @Test func errorAndDropRatesRaiseTheState() {
        let o = report.observation(
            interface: "eth0", rates: rates(rxBps: 0, txBps: 0, rxErrors: 3, txDropped: 150), speedMbps: nil)
        #expect(o.state == .critical)
        // Worst first.
        #expect(o.message == "rx 0 b/s, tx 0 b/s; tx drops 150/s >= 100/s; rx errors 3.0/s >= 1.0/s")
        #expect(metric(o, "rx_errors_ps") == 3)
        #expect(metric(o, "tx_dropped_ps") == 150)
    }

    @Test func noRateCarriesNoMetricsAndKeepsThePreviousState() {
        let first = report.observation(
            interface: "eth0", outcome: .noRate(.firstSample), speedMbps: 1000, previousState: nil)
        #expect(first.state == .ok)
        #expect(first.message == "no rate yet: first sample")
        #expect(first.metrics.isEmpty)
        let reset = report.observation(
            interface: "eth0", outcome: .noRate(.interfaceRecreated(previousIndex: 3, currentIndex: 8)),
            speedMbps: 1000, previousState: .critical)
        #expect(reset.state == .critical)
        #expect(reset.metrics.isEmpty)
        #expect(reset.message.contains("re-created"))
    }

    @Test func thresholdsOffMeansOk() {
        let quiet = InterfaceReport(
            thresholds: Thresholds(
                utilisation: ThresholdPair(warn: nil, crit: nil), errors: ThresholdPair(warn: nil, crit: nil),
                dropped: ThresholdPair(warn: nil, crit: 1_000)),
            labels: [])
        let o = quiet.observation(
            interface: "eth0", rates: rates(rxBps: 100e6, txBps: 0, rxErrors: 50, txDropped: 500), speedMbps: 100)
        #expect(o.state == .ok)
    }

    @Test(arguments: [
        (0.0, "0 b/s"), (0.04, "0 b/s"), (950, "950 b/s"), (999.96, "1.0 kb/s"), (1_500, "1.5 kb/s"),
        (120_000, "120 kb/s"),
        (7_949_000, "7.9 Mb/s"), (9_960_000, "10 Mb/s"), (999_700_000, "1.0 Gb/s"), (2.5e13, "25 Tb/s"),
    ])
    func bitRatesReadLikeAPersonWouldWriteThem(value: Double, text: String) {
        #expect(RateFormat.bitsPerSecond(value) == text)
    }

    @Test func percentagesAndEventRates() {
        #expect(RateFormat.percent(79.4) == "79%")
        #expect(RateFormat.percent(0.08) == "0.1%")
        #expect(RateFormat.percent(100) == "100%")
        #expect(RateFormat.perSecond(0.25) == "0.3/s")
        #expect(RateFormat.perSecond(12) == "12/s")
    }
}
