import Foundation
import PathwatchSinkKit
import PathwatchTestSupport
import Testing

/// A day offline, then a real Prometheus. The `remote_write` sink runs on a clock the test
/// moves (the agent's own clock, `ManualClock`, whose wall time ends the day at the real
/// present): a report every 10 minutes for a day while nothing listens at its URL. Then
/// Prometheus starts at that address, scraping itself (so its newest sample is the present, as a
/// receiver that other hosts write to has), and the sink goes on with a report every 10 seconds.
///
/// With `out_of_order_time_window: 1d` every report of the day lands with its own timestamp.
/// Without it Prometheus refuses what is older than its head takes (an hour before its newest
/// sample): those reports are counted as `rejected` with Prometheus's reason, the last hour
/// lands, and the reports made since the receiver came back land too: the refusals never hold
/// them back.
@Suite(.serialized, .onItsOwnThread) struct RemoteWriteOfflineDayTests {
    @Test(
        .enabled(if: PrometheusServer.unavailable() == nil, "needs prometheus (make test-deps)"),
        arguments: [true, false])
    func aDayOfflineLandsWhereTheReceiverTakesItAndNothingHoldsNewReportsBack(outOfOrderWindow: Bool) throws {
        let dir = try TestEnvironment.makeTemporaryDirectory()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        let port = try unusedLoopbackPort()
        let day = try OfflineDaySink(
            sinkJSON: """
                {"type": "remote_write", "url": "http://127.0.0.1:\(port)/api/v1/write",
                 "timeout": "5s", "retry": {"initial": "1s", "max": "10s"}}
                """, stateDirectory: dir.appendingPathComponent("queues"))
        defer { day.close() }
        let sink = day.sink
        try day.runDay()
        // The status counts a report once its append returns, a moment after its record is on
        // disk: wait for the count, then hold it to the day's reports exactly.
        _ = waitUntil(timeout: 10, interval: 0.05) { sink.status().queued >= OfflineDaySink.dayReports }
        #expect(sink.status().queued == OfflineDaySink.dayReports, "\(sink.status())")

        let prometheus = try PrometheusServer(
            in: dir,
            configuration: """
                global: {scrape_interval: 1s}
                scrape_configs: [{job_name: self, static_configs: [{targets: ["127.0.0.1:\(port)"]}]}]
                """ + (outOfOrderWindow ? "\nstorage: {tsdb: {out_of_order_time_window: 1d}}\n" : "\n"),
            arguments: ["--web.enable-remote-write-receiver"], port: port)
        try #require(
            waitUntil(timeout: 60) { prometheus.query(#"up{job="self"}"#).first?.value == "1" },
            "prometheus never scraped itself: \(prometheus.process.errorOutput.suffix(1500))")
        // The receiver is back. The sink's clock goes on, a second at a time but never past the
        // real present, with a report every 10 s, until the backlog is through and 20 reports
        // made since have arrived.
        func stored() -> Int {
            let expression = #"count_over_time(pathwatch_check_state{instance="offline-day",state="ok"}[2d])"#
            return Int(prometheus.query(expression).first?.value ?? "") ?? 0
        }
        var ticks = 0
        let settled = waitUntil(timeout: 300, interval: 0.02) {
            if day.clock.wallNow.milliseconds + 1_000 < OfflineDaySink.realNow() {
                day.clock.advance(by: OfflineDaySink.minute / 60)
                ticks += 1
                if ticks % 10 == 0 && day.times.count < OfflineDaySink.dayReports + 20 { try? day.report() }
            }
            let status = sink.status()
            return day.times.count >= OfflineDaySink.dayReports + 20 && status.queued == 0
                && stored() == day.times.count - (status.rejected ?? 0)
        }
        let status = sink.status()
        let sent = day.times.count
        let landed = stored()
        let diagnostics = "\(status); \(landed) stored of \(sent)\n\(prometheus.process.errorOutput.suffix(1500))"
        #expect(settled, "\(diagnostics)")
        let rejected = status.rejected ?? 0
        if outOfOrderWindow {
            #expect(landed == sent && rejected == 0, "\(diagnostics)")
        } else {
            // The head takes an hour before its newest sample (the present): the day's last 5 or
            // 6 reports, and everything since the return.
            #expect(
                rejected >= OfflineDaySink.dayReports - 7 && rejected <= OfflineDaySink.dayReports - 4,
                "\(diagnostics)")
            #expect(landed == sent - rejected, "\(diagnostics)")
            #expect(status.lastError?.contains("out of bounds") == true, "\(diagnostics)")
        }
        // Each with its own timestamp: the newest report's is the newest sample in Prometheus.
        let newest = prometheus.query(#"timestamp(pathwatch_check_state{instance="offline-day",state="ok"})"#)
        #expect(
            newest.first.flatMap { Double($0.value) }.map { Int64(($0 * 1000).rounded()) } == day.times.last,
            "\(newest) against \(day.times.last ?? 0)")
    }
}
