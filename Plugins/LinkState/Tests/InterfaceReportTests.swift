import CNetlink
import PathwatchNetlink
import PathwatchProbeKit
import Testing

@testable import LinkStateProbe

@Suite("interface and path checks")
struct InterfaceReportTests {
    static let up = IFF_UP.rawValue | IFF_RUNNING.rawValue | IFF_LOWER_UP.rawValue

    func reporter(_ json: String = "{}") throws -> InterfaceReporter {
        InterfaceReporter(config: try ProbeExport.decodeConfig(LinkStateConfig.self, from: json))
    }

    func link(_ name: String, flags: UInt32, carrier: Bool) -> Link {
        Link(
            index: 2, name: name, flags: flags, mtu: 1500, hardwareType: UInt16(ARPHRD_ETHER),
            hardwareAddress: [2, 0, 0, 0, 0, 1], carrier: carrier, carrierChanges: 4, kind: "veth")
    }

    @Test func upWithCarrierIsOkWithSpeedAddressesMetricsAndLabels() throws {
        let addresses = [
            Address(family: UInt8(AF_INET), prefixLength: 24, interfaceIndex: 2, address: [10, 0, 0, 5]),
            Address(
                family: UInt8(AF_INET6), prefixLength: 64, interfaceIndex: 2,
                address: [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]),
        ]
        let report = try reporter(#"{"metered": ["eth*"]}"#).report(
            for: link("eth0", flags: Self.up, carrier: true), type: .ethernet, speed: 1000, addresses: addresses,
            defaultRouteMetric: 100)
        #expect(report.state == .ok)
        #expect(report.message == "up, carrier, 1000 Mb/s, 10.0.0.5/24")
        #expect(report.metrics.map(\.name) == ["up", "carrier", "speed_mbps", "mtu", "carrier_changes"])
        #expect(report.metrics.map(\.value) == [1, 1, 1000, 1500, 4])
        let labels = Dictionary(uniqueKeysWithValues: report.labels.map { ($0.name, $0.value) })
        #expect(
            labels == [
                "type": "ethernet", "kind": "veth", "mac": "02:00:00:00:00:01",
                WellKnownLabel.interfaceName: "eth0", WellKnownLabel.interfaceType: "ethernet",
                WellKnownLabel.interfaceUsable: "1", WellKnownLabel.defaultRoute: "100", WellKnownLabel.metered: "1",
            ])
    }

    @Test func upWithoutCarrierIsCriticalAndUnusable() throws {
        let report = try reporter().report(
            for: link("eth1", flags: IFF_UP.rawValue, carrier: false), type: .ethernet, speed: nil, addresses: [],
            defaultRouteMetric: 100)
        #expect(report.state == .critical)
        #expect(report.message == "up, no carrier")
        #expect(report.metrics.first { $0.name == "speed_mbps" } == nil)
        #expect(report.labels.contains(Report.Label(name: WellKnownLabel.interfaceUsable, value: "0")))
    }

    @Test func administrativelyDownIsOkUnlessRequired() throws {
        let down = link("eth0", flags: 0, carrier: false)
        let relaxed = try reporter().report(
            for: down, type: .ethernet, speed: nil, addresses: [], defaultRouteMetric: nil)
        #expect(relaxed.state == .ok && relaxed.message == "administratively down")
        #expect(!relaxed.labels.contains { $0.name == WellKnownLabel.defaultRoute })
        let strict = try reporter(#"{"require": ["eth*"]}"#).report(
            for: down, type: .ethernet, speed: nil, addresses: [], defaultRouteMetric: nil)
        #expect(strict.state == .critical && strict.message == "administratively down")
    }

    @Test func pathPicksTheLowestMetricAndSaysHow() {
        let offline = PathReporter.report(candidates: [])
        #expect(offline.state == .critical && offline.message == "Offline - No internet connection")
        let wifi = PathReporter.report(candidates: [
            .init(name: "eth0", type: .ethernet, metric: 600, metered: false),
            .init(name: "wlan0", type: .wifi, metric: 100, metered: false),
        ])
        #expect(wifi.state == .ok && wifi.message == "Connected via Wi-Fi (wlan0)")
        #expect(wifi.metrics == [.init(name: "satisfied", value: 1), .init(name: "expensive", value: 0)])
        let cellular = PathReporter.report(candidates: [
            .init(name: "wwan0", type: .cellular, metric: 700, metered: false)
        ])
        #expect(cellular.message == "Connected via Cellular (wwan0)" && cellular.metrics.last?.value == 1)
        let metered = PathReporter.report(candidates: [.init(name: "eth0", type: .ethernet, metric: 0, metered: true)])
        #expect(metered.metrics.last?.value == 1)
    }
}
