import Foundation
import Testing

@testable import BandwidthProbe

/// The kernel's link speed is read once and asked again only when the link may have changed.
@Suite struct LinkSpeedsTests {
    func at(_ seconds: Double) -> MonotonicInstant { MonotonicInstant(nanoseconds: Int64(seconds * 1e9)) }

    func eth0(index: Int32 = 2, carrierChanges: UInt32? = 4) -> InterfaceReading {
        InterfaceReading(name: "eth0", index: index, counters: InterfaceCounters(), carrierChanges: carrierChanges)
    }

    @Test func rereadOnlyOnANewIfindexACarrierFlapOrAfterTheRefreshTime() throws {
        let files = try FakeKernelFiles()
        var link = FakeKernelFiles.Interface(name: "eth0", index: 2, speed: "1000")
        try files.write([link])
        let speeds = LinkSpeeds(setting: .kernel, sysfsPath: files.sysfsPath)
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(100)) == 1000)

        link.speed = "100"
        try files.write([link])
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(101)) == 1000, "nothing says the link changed yet")
        #expect(speeds.megabitsPerSecond(of: eth0(carrierChanges: 6), at: at(102)) == 100, "the carrier flapped")

        link.speed = "10"
        try files.write([link])
        #expect(speeds.megabitsPerSecond(of: eth0(index: 9, carrierChanges: 6), at: at(103)) == 10, "re-created")

        link.speed = "2500"
        try files.write([link])
        #expect(
            speeds.megabitsPerSecond(
                of: eth0(index: 9, carrierChanges: 6), at: at(103 + LinkSpeeds.refreshSeconds - 0.5)) == 10)
        #expect(
            speeds.megabitsPerSecond(of: eth0(index: 9, carrierChanges: 6), at: at(103 + LinkSpeeds.refreshSeconds))
                == 2500)
    }

    @Test func unknownSpeedsAreRememberedToo() throws {
        let files = try FakeKernelFiles()
        var link = FakeKernelFiles.Interface(name: "eth0", index: 2, speed: "-1")
        try files.write([link])
        let speeds = LinkSpeeds(setting: .kernel, sysfsPath: files.sysfsPath)
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(0)) == nil)
        link.speed = "1000"
        try files.write([link])
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(1)) == nil)
        // Once the link comes up its carrier changes, and the new speed is read.
        #expect(speeds.megabitsPerSecond(of: eth0(carrierChanges: 5), at: at(2)) == 1000)
    }

    @Test func forgottenInterfacesAreReadAfresh() throws {
        let files = try FakeKernelFiles()
        var link = FakeKernelFiles.Interface(name: "eth0", index: 2, speed: "1000")
        try files.write([link])
        let speeds = LinkSpeeds(setting: .kernel, sysfsPath: files.sysfsPath)
        _ = speeds.megabitsPerSecond(of: eth0(), at: at(0))
        speeds.retain(only: [])
        link.speed = "40000"
        try files.write([link])
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(1)) == 40000)
    }

    @Test func configuredSpeedsNeverTouchTheKernel() {
        let speeds = LinkSpeeds(setting: .everywhere(megabitsPerSecond: 250), sysfsPath: "/nonexistent")
        #expect(speeds.megabitsPerSecond(of: eth0(), at: at(0)) == 250)
    }
}
