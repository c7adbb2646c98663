import BandwidthProbe
import PathwatchProbeKit
import Testing

@Suite struct BandwidthConfigTests {
    func decode(_ json: String) throws(ProbeConfigError) -> BandwidthConfig {
        try ProbeExport.decodeConfig(BandwidthConfig.self, from: json)
    }

    /// The path and message of the error `json` produces.
    func failure(_ json: String) -> (path: String, message: String)? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return ("\(error.path)", error.message)
        }
    }

    @Test func defaults() throws {
        let config = try decode("{}")
        #expect(config.interfaces == [Glob("*")])
        #expect(config.ignore == [Glob("lo")])
        #expect(config.speed == .kernel)
        #expect(config.source == .auto)
        #expect(config.procfsPath == "/proc/net/dev")
        #expect(config.sysfsPath == "/sys/class/net")
        #expect(config.thresholds.utilisation == ThresholdPair(warn: 80, crit: 95))
        #expect(config.thresholds.errors == ThresholdPair(warn: 1, crit: 10))
        #expect(config.thresholds.dropped == ThresholdPair(warn: 10, crit: 100))
    }

    @Test func everyKeySet() throws {
        let config = try decode(
            """
            {"interfaces": ["eth*", "wlan0"], "ignore": [], "speed": 1000, "source": "procfs",
             "procfs_path": "/tmp/dev", "sysfs_path": "/tmp/sys",
             "warn_util_pct": 60, "crit_util_pct": 90, "warn_errors_ps": 0.5, "crit_errors_ps": 5,
             "warn_dropped_ps": 2, "crit_dropped_ps": null}
            """)
        #expect(config.interfaces == [Glob("eth*"), Glob("wlan0")])
        #expect(config.ignore.isEmpty)
        #expect(config.speed == .everywhere(megabitsPerSecond: 1000))
        #expect(config.source == .procfs)
        #expect(config.procfsPath == "/tmp/dev")
        #expect(config.sysfsPath == "/tmp/sys")
        #expect(config.thresholds.utilisation == ThresholdPair(warn: 60, crit: 90))
        #expect(config.thresholds.errors == ThresholdPair(warn: 0.5, crit: 5))
        // null switches a level off.
        #expect(config.thresholds.dropped == ThresholdPair(warn: 2, crit: nil))
    }

    @Test func speedPerInterfacePatternFirstMatchWins() throws {
        let config = try decode(#"{"speed": {"eth0": 100, "eth*": 1000, "wwan*": 50}}"#)
        #expect(config.speed.configured(for: "eth0") == 100)
        #expect(config.speed.configured(for: "eth1") == 1000)
        #expect(config.speed.configured(for: "wwan0") == 50)
        #expect(config.speed.configured(for: "wlan0") == nil)
    }

    @Test func errorsNameTheOffendingValue() {
        let cases: [(json: String, path: String, says: String)] = [
            (#"{"interfaces": []}"#, "interfaces", "at least one interface pattern"),
            (#"{"interfaces": ["eth0", ""]}"#, "interfaces[1]", "non-empty pattern"),
            (#"{"interfaces": "eth0"}"#, "interfaces", "expected an array"),
            (#"{"speed": 0}"#, "speed", "above 0, found 0"),
            (#"{"speed": "fast"}"#, "speed", "expected a speed in Mb/s or an object"),
            (#"{"speed": {"eth0": 100, "wlan*": "54"}}"#, #"speed["wlan*"]"#, "expected a link speed in Mb/s above 0"),
            (#"{"source": "sysfs"}"#, "source", #"expected "auto", "netlink" or "procfs""#),
            (#"{"procfs_path": "proc/net/dev"}"#, "procfs_path", "absolute path"),
            (#"{"warn_util_pct": -5}"#, "warn_util_pct", "above 0"),
            (#"{"crit_errors_ps": "many"}"#, "crit_errors_ps", "number"),
            (
                #"{"warn_util_pct": 90, "crit_util_pct": 85}"#, "crit_util_pct",
                "warn_util_pct (90) must not be above crit_util_pct (85)"
            ),
            (
                #"{"warn_dropped_ps": 500}"#, "warn_dropped_ps",
                "warn_dropped_ps (500) must not be above crit_dropped_ps (100)"
            ),
            (#"{"interface": ["eth0"]}"#, "interface", "unknown key"),
        ]
        for c in cases {
            let got = failure(c.json)
            #expect(got?.path == c.path, "\(c.json)")
            #expect(got?.message.contains(c.says) == true, "\(c.json): \(got?.message ?? "no error")")
        }
    }
}
